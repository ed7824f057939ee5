import type { Queues, Sweep } from "@svc/queue";
import { findDueCallbacks, type RootDatabase } from "@svc/store";
import { callbackTryJobId } from "./callback-retry";

// `requeue-callbacks` (docs/approvals.md "Retries"): the row is the truth. A pending callback due
// a while ago has lost its job (Redis emptied or down at enqueue, a crash between the decision's
// commit and its enqueue) or its worker (killed mid-send: the claim's lease ran out). Its try's job
// is added again; the claim makes a duplicate job harmless.

export interface CallbackSweepDeps {
  prisma: RootDatabase;
  queues: Pick<Queues, "enqueueBulk">;
}

export interface CallbackSweepOptions {
  every?: number;
  /** How long past due a callback waits for its own job before the sweep adds one. */
  graceMs?: number;
  limit?: number;
}

const CALLBACK_SWEEP_EVERY_MS = 15_000;
const CALLBACK_SWEEP_GRACE_MS = 10_000;

export function requeueCallbacksSweep(deps: CallbackSweepDeps, options: CallbackSweepOptions = {}): Sweep {
  const graceMs = options.graceMs ?? CALLBACK_SWEEP_GRACE_MS;
  return {
    name: "requeue-callbacks",
    every: options.every ?? CALLBACK_SWEEP_EVERY_MS,
    run: async ({ now }) => {
      const due = await findDueCallbacks(
        deps.prisma,
        new Date(now.getTime() - graceMs),
        options.limit ?? 500,
      );
      if (due.length === 0) return { found: 0, jobIds: [] };
      const jobIds = await deps.queues.enqueueBulk(
        due.map((row) => ({
          name: "send-callback" as const,
          payload: { callbackId: row.id },
          opts: { jobId: callbackTryJobId(row.id, row.next_attempt_at ?? now, { sweep: true }) },
        })),
      );
      return { found: due.length, jobIds };
    },
  };
}
