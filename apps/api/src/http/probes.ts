import { Router } from "express";
import { AppError } from "@svc/core";
import type { Logger } from "@svc/log";

// /healthz says the process is up; /readyz runs the injected dependency checks (database, Redis,
// migrations) in parallel, each bounded by a timeout, and names the ones that fail.

/**
 * Resolves when ready; throws or resolves `false` when not. A check may resolve `{ready, details}`
 * instead: `details` (public: counts and states, never addresses) appear under its name in the answer.
 */
export type ReadinessCheck = () => Promise<unknown>;

interface DetailedReadiness {
  ready: boolean;
  details: Record<string, unknown>;
}

const isDetailed = (value: unknown): value is DetailedReadiness =>
  typeof value === "object" && value !== null && "ready" in value && "details" in value;

type CheckResult = "ok" | "failed";

const READINESS_TIMEOUT_MS = 2000;

class NotReadyError extends Error {
  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

async function runCheck(
  check: ReadinessCheck,
  timeoutMs: number,
): Promise<Record<string, unknown> | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const result = await Promise.race([check(), timeout]);
    if (result === false) throw new Error("check returned false");
    if (!isDetailed(result)) return undefined;
    if (!result.ready)
      throw new NotReadyError(`not ready: ${JSON.stringify(result.details)}`, result.details);
    return result.details;
  } finally {
    clearTimeout(timer);
  }
}

export function probesRouter(
  checks: Record<string, ReadinessCheck>,
  logger: Logger,
  timeoutMs = READINESS_TIMEOUT_MS,
): Router {
  const router = Router();
  router.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  router.get("/readyz", async (_req, res) => {
    const details: Record<string, Record<string, unknown>> = {};
    const entries = await Promise.all(
      Object.entries(checks).map(async ([name, check]): Promise<[string, CheckResult]> => {
        try {
          const found = await runCheck(check, timeoutMs);
          if (found) details[name] = found;
          return [name, "ok"];
        } catch (error) {
          if (error instanceof NotReadyError && error.details) details[name] = error.details;
          // The reason stays in the log: probe answers are public.
          logger.warn("readiness check failed", {
            check: name,
            error: error instanceof Error ? error.message : String(error),
          });
          return [name, "failed"];
        }
      }),
    );
    const results = Object.fromEntries(entries);
    const failing = entries.filter(([, result]) => result === "failed").map(([name]) => name);
    if (failing.length > 0) {
      throw new AppError("unavailable", `Not ready: ${failing.join(", ")}`, {
        extra: { checks: results, ...details },
      });
    }
    res.json({ status: "ready", checks: results, ...details });
  });
  return router;
}
