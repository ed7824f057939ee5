import { metrics } from "@svc/log";
import type { JobHandler } from "./worker";
import type { SweepName } from "./catalog";
import type { Queues } from "./producers";

// Recurring sweeps run as `sweep` jobs on the `scheduler` queue, produced by BullMQ job
// schedulers: upserting is idempotent, so every worker process may register them at start.

export interface SweepContext {
  sweep: SweepName;
  /** When this run started; sweeps compare deadlines against it. */
  now: Date;
}

export interface Sweep {
  /** One of the catalog's SWEEP_NAMES: the scheduler id and the job's `sweep` field. */
  name: SweepName;
  /** Milliseconds between runs. */
  every: number;
  run: (ctx: SweepContext) => Promise<unknown>;
}

const SWEEP_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
// Sweeps repeat anyway: keep only a short history for the dashboard.
const KEEP_SWEEP_RUNS = { count: 100 } as const;

export function schedulerId(sweep: string): string {
  return `sweep-${sweep}`;
}

export interface RegisterSchedulesOptions {
  /** Remove job schedulers of sweeps no longer in the list (renamed or retired). */
  prune?: boolean;
}

export async function registerSchedules(
  queues: Queues,
  sweeps: readonly { name: string; every: number }[],
  options: RegisterSchedulesOptions = {},
): Promise<{ registered: string[]; removed: string[] }> {
  for (const sweep of sweeps) {
    if (!SWEEP_NAME.test(sweep.name)) throw new Error(`sweep name ${JSON.stringify(sweep.name)} is invalid`);
    if (!Number.isInteger(sweep.every) || sweep.every <= 0)
      throw new Error(`sweep ${sweep.name}: every must be > 0`);
  }
  const scheduler = queues.queue("scheduler");
  const registered: string[] = [];
  for (const sweep of sweeps) {
    await scheduler.upsertJobScheduler(
      schedulerId(sweep.name),
      { every: sweep.every },
      {
        name: "sweep",
        data: { sweep: sweep.name },
        opts: { attempts: 1, removeOnComplete: KEEP_SWEEP_RUNS, removeOnFail: KEEP_SWEEP_RUNS },
      },
    );
    registered.push(schedulerId(sweep.name));
  }
  const removed: string[] = [];
  if (options.prune ?? true) {
    const wanted = new Set(registered);
    for (const existing of await scheduler.getJobSchedulers(0, -1)) {
      if (!wanted.has(existing.key) && (await scheduler.removeJobScheduler(existing.key)))
        removed.push(existing.key);
    }
  }
  return { registered, removed };
}

/** The `sweep` job handler: runs the named sweep; an unknown name (retired sweep) is skipped. */
export function sweepHandler(
  sweeps: readonly Sweep[],
  now: () => Date = () => new Date(),
): JobHandler<"sweep"> {
  const byName = new Map<string, Sweep>(sweeps.map((sweep) => [sweep.name, sweep]));
  return async ({ sweep }) => {
    // A job of a sweep since retired (its scheduler is pruned at the next start) does nothing.
    const found = byName.get(sweep);
    if (found === undefined) return { skipped: "unknown sweep" };
    try {
      const result = await found.run({ sweep: found.name, now: now() });
      metrics.sweepRuns.inc({ sweep, outcome: "ok" });
      const rows = rowsOf(result);
      if (rows > 0) metrics.sweepRows.inc({ sweep }, rows);
      return result;
    } catch (error) {
      metrics.sweepRuns.inc({ sweep, outcome: "error" });
      throw error;
    }
  };
}

// Sweeps answer with counts (`{found: 3, jobIds: [...]}`, `{expired: 2}`): their sum is the rows it moved.
function rowsOf(result: unknown): number {
  if (typeof result === "number") return result;
  if (result === null || typeof result !== "object") return 0;
  return Object.values(result).reduce<number>((sum, v) => sum + (typeof v === "number" ? v : 0), 0);
}
