import type { RequestHandler } from "express";
import type { Redis } from "ioredis";
import { AppError } from "@svc/core";

// Per-key rate limit shared by every API process through Redis (DECISIONS `api.rate_limit`).
// A token bucket in one Lua script: atomic, one round trip, no clock skew between API processes
// (Redis's own TIME is the clock). Small enough that a library would add more than it saves.
const TOKEN_BUCKET = `
local key = KEYS[1]
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local state = redis.call('HMGET', key, 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + (now - at) * rate / 1000)
local allowed = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  wait = math.ceil((1 - tokens) * 1000 / rate)
end
redis.call('HSET', key, 'tokens', tokens, 'at', now)
redis.call('PEXPIRE', key, math.ceil(burst * 1000 / rate) + 1000)
return {allowed, wait}
`;

export interface RateLimitOptions {
  enabled: boolean;
  per_second: number;
  burst: number;
}

export function rateLimit(redis: Redis, prefix: string, options: RateLimitOptions): RequestHandler {
  if (!options.enabled) return (_req, _res, next) => next(); // off costs nothing per request
  return async (_req, res, next) => {
    const principal = res.locals.principal as { keyId: string } | undefined;
    if (!principal) return next();
    const [allowed, waitMs] = (await redis.eval(
      TOKEN_BUCKET,
      1,
      `${prefix}:ratelimit:${principal.keyId}`,
      options.per_second,
      options.burst,
    )) as [number, number];
    if (allowed === 1) return next();
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    throw new AppError(
      "rate_limited",
      `rate limit of ${options.per_second} requests per second for this API key exceeded; retry in ${retryAfter} s`,
      {
        headers: { "Retry-After": String(retryAfter) },
      },
    );
  };
}
