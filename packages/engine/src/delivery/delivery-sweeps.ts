import { REASON, recoveryTimings, type RecoveryTimings } from "@svc/core";
import { requeueStuck, type Queues, type Sweep } from "@svc/queue";
import {
  bumpLapsedLeases,
  bumpOverdueQueued,
  expireQueuedMessages,
  type BumpedMessage,
  type RootDatabase,
} from "@svc/store";
import { recordFinalMessage } from "../metrics/record-metrics";
import { messageStatusPerRow } from "../outbox/emit";

// Sweeps of the delivery queue (docs/delivery.md, docs/operations.md "Recovery guarantees"). A
// bumped generation turns an older job still in flight or in Redis into a no-op at its claim.

export interface DeliverySweepDeps {
  prisma: RootDatabase;
  queues: Pick<Queues, "enqueueBulk">;
}

type SweepTimings = Pick<RecoveryTimings, "sweepEveryMs" | "overdueQueuedGraceMs">;
const DEFAULT_TIMINGS = recoveryTimings({ lease_seconds: 30, sweep_seconds: 10 });

const BATCH = 500;

/** `expire-queued`: still queued at `expires_at` → `suppressed` / `expired` (docs/delivery.md "Sweeps"). */
export function expireQueuedSweep(deps: Pick<DeliverySweepDeps, "prisma">, every = 30_000): Sweep {
  return {
    name: "expire-queued",
    every,
    run: async ({ now }) => {
      const expired = await expireQueuedMessages(
        deps.prisma,
        now,
        REASON.expired,
        messageStatusPerRow("suppressed", REASON.expired, now),
      );
      recordFinalMessage("suppressed", REASON.expired, expired);
      return { expired };
    },
  };
}

/**
 * `reclaim-leases`: `sending` rows whose lease ran out (a killed worker stops renewing it, a parked
 * retry reached its time and its job is lost) get a new job.
 */
export function reclaimLeasesSweep(deps: DeliverySweepDeps, timings: SweepTimings = DEFAULT_TIMINGS): Sweep {
  return {
    name: "reclaim-leases",
    every: timings.sweepEveryMs,
    run: ({ now }) => bumpAndEnqueue(deps, (limit) => bumpLapsedLeases(deps.prisma, now, limit)),
  };
}

/** `requeue-due`: queued rows due longer than the grace ago whose job may never have reached Redis. */
export function requeueDueSweep(deps: DeliverySweepDeps, timings: SweepTimings = DEFAULT_TIMINGS): Sweep {
  return {
    name: "requeue-due",
    every: timings.sweepEveryMs,
    run: ({ now }) =>
      bumpAndEnqueue(deps, (limit) =>
        bumpOverdueQueued(deps.prisma, new Date(now.getTime() - timings.overdueQueuedGraceMs), now, limit),
      ),
  };
}

export function deliverySweeps(deps: DeliverySweepDeps, timings: SweepTimings = DEFAULT_TIMINGS): Sweep[] {
  return [expireQueuedSweep(deps), reclaimLeasesSweep(deps, timings), requeueDueSweep(deps, timings)];
}

// A job that may still exist in Redis under the old id would swallow the add, so the rows move to
// the next generation first (packages/store: message-sweeps.ts) and the new ids are enqueued at
// the head of the queue (`lifo`): a message recovered from a long backlog must not be sent to its
// back again, where the next run would find it overdue once more.
function bumpAndEnqueue(deps: DeliverySweepDeps, bump: (limit: number) => Promise<BumpedMessage[]>) {
  return requeueStuck({ queues: deps.queues, job: "deliver-message", limit: BATCH, list: bump, lifo: true });
}
