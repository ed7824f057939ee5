import { REASON } from "@svc/core";
import { requeueStuck, type Queues, type Sweep } from "@svc/queue";
import { Prisma, type PrismaClient } from "@svc/store";

// Sweeps of the delivery queue (docs/delivery.md). A bumped generation turns an older job still in
// flight or in Redis into a no-op at its claim.

export interface DeliverySweepDeps {
  prisma: PrismaClient;
  queues: Pick<Queues, "enqueueBulk">;
}

/** Queued rows whose job should have run this long ago are presumed to have lost it. */
export const REQUEUE_DUE_GRACE_MS = 60_000;
const BATCH = 500;

/** `expire-queued`: still queued at `expires_at` → `suppressed` / `expired` (SPEC 3.1). */
export function expireQueuedSweep(deps: Pick<DeliverySweepDeps, "prisma">, every = 30_000): Sweep {
  return {
    name: "expire-queued",
    every,
    run: async ({ now }) => {
      const { count } = await deps.prisma.message.updateMany({
        where: { status: "queued", expires_at: { lte: now } },
        data: { status: "suppressed", status_reason: REASON.expired, updated_at: now },
      });
      return { expired: count };
    },
  };
}

/** `reclaim-leases`: `sending` rows whose lease ran out (killed worker, lost retry job) get a new job. */
export function reclaimLeasesSweep(deps: DeliverySweepDeps, every = 30_000): Sweep {
  return {
    name: "reclaim-leases",
    every,
    run: ({ now }) => bumpAndEnqueue(deps, Prisma.sql`status = 'sending' AND lease_until < ${now}`, now),
  };
}

/** `requeue-due`: queued rows due more than a minute ago whose job may never have reached Redis. */
export function requeueDueSweep(deps: DeliverySweepDeps, every = 60_000): Sweep {
  return {
    name: "requeue-due",
    every,
    run: ({ now }) =>
      bumpAndEnqueue(
        deps,
        Prisma.sql`status = 'queued' AND send_at < ${new Date(now.getTime() - REQUEUE_DUE_GRACE_MS)}`,
        now,
      ),
  };
}

export function deliverySweeps(deps: DeliverySweepDeps): Sweep[] {
  return [expireQueuedSweep(deps), reclaimLeasesSweep(deps), requeueDueSweep(deps)];
}

// A job that may still exist in Redis under the old id would swallow the add, so the rows move to
// the next generation first and the new ids are enqueued. One statement: the oldest matching rows,
// locked (rows a worker is writing right now are skipped, the next run sees them), bumped only if
// they still match, so an older job still in flight becomes a no-op at its claim.
async function bumpAndEnqueue(deps: DeliverySweepDeps, stuck: Prisma.Sql, now: Date) {
  return requeueStuck({
    queues: deps.queues,
    job: "deliver-message",
    limit: BATCH,
    list: async (limit) => {
      const rows = await deps.prisma.$queryRaw<{ id: string; generation: number }[]>(Prisma.sql`
        UPDATE messages SET generation = generation + 1, updated_at = ${now}
        WHERE id IN (SELECT id FROM messages WHERE ${stuck} ORDER BY send_at LIMIT ${limit} FOR UPDATE SKIP LOCKED) AND ${stuck}
        RETURNING id, generation`);
      return rows.map((row) => ({ messageId: row.id, generation: row.generation }));
    },
  });
}
