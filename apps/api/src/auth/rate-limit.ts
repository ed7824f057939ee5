import type { RequestHandler } from "express";
import { AppError } from "@svc/core";
import { takeTokens, type RedisClient, type TokenGrant } from "@svc/queue";

// Per-key rate limit shared by every API process through Redis (`api.rate_limit`; docs/api.md,
// "Limits and defaults").
// A token bucket shared by every API process (`takeTokens`, one Lua script with Redis's own clock).

export interface RateLimitOptions {
  enabled: boolean;
  per_second: number;
  burst: number;
  /** While Redis is unreachable: serve unlimited (`open`) or answer 503 (`closed`). */
  on_redis_error: "open" | "closed";
}

/** What a client is told to wait while Redis is unreachable (a restart takes seconds). */
export const REDIS_RETRY_AFTER_SECONDS = 5;

export interface RateLimitLogger {
  warn(message: string, meta?: Record<string, unknown>): void;
}

export function rateLimit(
  redis: RedisClient,
  prefix: string,
  options: RateLimitOptions,
  logger?: RateLimitLogger,
): RequestHandler {
  if (!options.enabled) return (_req, _res, next) => next(); // off costs nothing per request
  const outage = outageLog(logger);
  const bucket = { perSecond: options.per_second, burst: options.burst, idleMs: 1000 };
  return async (_req, res, next) => {
    // The API key's id, or `inbox:<person>` for an inbox token (require-inbox-token.ts).
    const key =
      (res.locals.principal as { keyId: string } | undefined)?.keyId ??
      (res.locals.rateLimitKey as string | undefined);
    if (!key) return next();
    let grant: TokenGrant;
    try {
      grant = await takeTokens(redis, `${prefix}:ratelimit:${key}`, bucket, 1);
    } catch (error) {
      // Redis unreachable (the client fails fast, docs/operations.md "While Redis is down").
      outage(error);
      if (options.on_redis_error === "open") return next();
      throw new AppError("unavailable", "the rate limiter cannot reach Redis; retry the request", {
        headers: { "Retry-After": String(REDIS_RETRY_AFTER_SECONDS) },
        cause: error,
      });
    }
    if (grant.granted === 1) return next();
    const retryAfter = Math.max(1, Math.ceil(grant.waitMs / 1000));
    throw new AppError(
      "rate_limited",
      `rate limit of ${options.per_second} requests per second for this ${key.startsWith("inbox:") ? "person" : "API key"} exceeded; retry in ${retryAfter} s`,
      {
        headers: { "Retry-After": String(retryAfter) },
      },
    );
  };
}

// One warning per outage rather than one per request: an outage under load is thousands of them.
function outageLog(logger: RateLimitLogger | undefined, quietMs = 10_000): (error: unknown) => void {
  let lastAt = 0;
  return (error) => {
    const now = Date.now();
    if (now - lastAt < quietMs) return;
    lastAt = now;
    logger?.warn("rate limiter cannot reach redis", {
      error: error instanceof Error ? error.message : String(error),
    });
  };
}
