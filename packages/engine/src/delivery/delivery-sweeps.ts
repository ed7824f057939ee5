import { REASON } from "@svc/core";
import { requeueStuck, type Queues, type Sweep } from "@svc/queue";
import {
  bumpLapsedLeases,
  bumpOverdueQueued,
  expireQueuedMessages,
  type BumpedMessage,
  type PrismaClient,
} from "@svc/store";

// Sweeps of the delivery queue (docs/delivery.md). A bumped generation turns an older job still in
// flight or in Redis into a no-op at its claim.

export interface DeliverySweepDeps {
  prisma: PrismaClient;
  queues: Pick<Queues, "enqueueBulk">;
}

/** Queued rows whose job should have run this long ago are presumed to have lost it. */
export const REQUEUE_DUE_GRACE_MS = 60_000;
const BATCH = 500;

/** `expire-queued`: still queued at `expires_at` → `suppressed` / `expired` (docs/delivery.md "Sweeps"). */
export function expireQueuedSweep(deps: Pick<DeliverySweepDeps, "prisma">, every = 30_000): Sweep {
  return {
    name: "expire-queued",
    every,
    run: async ({ now }) => ({ expired: await expireQueuedMessages(deps.prisma, now, REASON.expired) }),
  };
}

/** `reclaim-leases`: `sending` rows whose lease ran out (killed worker, lost retry job) get a new job. */
export function reclaimLeasesSweep(deps: DeliverySweepDeps, every = 30_000): Sweep {
  return {
    name: "reclaim-leases",
    every,
    run: ({ now }) => bumpAndEnqueue(deps, (limit) => bumpLapsedLeases(deps.prisma, now, limit)),
  };
}

/** `requeue-due`: queued rows due more than a minute ago whose job may never have reached Redis. */
export function requeueDueSweep(deps: DeliverySweepDeps, every = 60_000): Sweep {
  return {
    name: "requeue-due",
    every,
    run: ({ now }) =>
      bumpAndEnqueue(deps, (limit) =>
        bumpOverdueQueued(deps.prisma, new Date(now.getTime() - REQUEUE_DUE_GRACE_MS), now, limit),
      ),
  };
}

export function deliverySweeps(deps: DeliverySweepDeps): Sweep[] {
  return [expireQueuedSweep(deps), reclaimLeasesSweep(deps), requeueDueSweep(deps)];
}

// A job that may still exist in Redis under the old id would swallow the add, so the rows move to
// the next generation first (packages/store: message-sweeps.ts) and the new ids are enqueued.
function bumpAndEnqueue(deps: DeliverySweepDeps, bump: (limit: number) => Promise<BumpedMessage[]>) {
  return requeueStuck({ queues: deps.queues, job: "deliver-message", limit: BATCH, list: bump });
}
