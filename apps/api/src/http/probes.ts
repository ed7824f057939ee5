import { Router } from "express";
import { AppError } from "@svc/core";
import type { Logger } from "@svc/log";

// /healthz says the process is up; /readyz runs the injected dependency checks (database, Redis,
// migrations) in parallel, each bounded by a timeout, and names the ones that fail.

/** Resolves when ready; throws or resolves `false` when not. */
export type ReadinessCheck = () => Promise<unknown>;

export type CheckResult = "ok" | "failed";

export const READINESS_TIMEOUT_MS = 2000;

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const result = await Promise.race([check(), timeout]);
    if (result === false) throw new Error("check returned false");
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
    const entries = await Promise.all(
      Object.entries(checks).map(async ([name, check]): Promise<[string, CheckResult]> => {
        try {
          await runCheck(check, timeoutMs);
          return [name, "ok"];
        } catch (error) {
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
      throw new AppError("unavailable", `Not ready: ${failing.join(", ")}`, { extra: { checks: results } });
    }
    res.json({ status: "ready", checks: results });
  });
  return router;
}
