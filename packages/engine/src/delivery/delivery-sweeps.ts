import { REASON } from "@svc/core";
import { requeueStuck, type Queues, type Sweep } from "@svc/queue";
import type { PrismaClient } from "@svc/store";

// Sweeps of the delivery queue (docs/delivery.md). Generation bumps are compare-and-set on the
// generation read, so an older job still in flight turns into a no-op at its claim.

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
    run: ({ now }) =>
      bumpAndEnqueue(
        deps,
        { status: "sending", lease_until: { lt: now } },
        { status: "sending", lease_until: { lt: now } },
        now,
      ),
  };
}

/** `requeue-due`: queued rows due more than a minute ago whose job may never have reached Redis. */
export function requeueDueSweep(deps: DeliverySweepDeps, every = 60_000): Sweep {
  return {
    name: "requeue-due",
    every,
    run: ({ now }) => {
      const due = {
        status: "queued" as const,
        send_at: { lt: new Date(now.getTime() - REQUEUE_DUE_GRACE_MS) },
      };
      return bumpAndEnqueue(deps, due, due, now);
    },
  };
}

export function deliverySweeps(deps: DeliverySweepDeps): Sweep[] {
  return [expireQueuedSweep(deps), reclaimLeasesSweep(deps), requeueDueSweep(deps)];
}

type MessageWhere = NonNullable<Parameters<PrismaClient["message"]["findMany"]>[0]>["where"];

// A job that may still exist in Redis under the old id would swallow the add, so the row moves to
// the next generation first (CAS per row) and the new id is enqueued.
async function bumpAndEnqueue(deps: DeliverySweepDeps, list: MessageWhere, recheck: MessageWhere, now: Date) {
  return requeueStuck({
    queues: deps.queues,
    job: "deliver-message",
    limit: BATCH,
    list: async (limit) => {
      const rows = await deps.prisma.message.findMany({
        where: list,
        orderBy: { send_at: "asc" },
        take: limit,
        select: { id: true, generation: true },
      });
      const bumped = await Promise.all(
        rows.map((row) =>
          deps.prisma.message.updateManyAndReturn({
            where: { AND: [recheck ?? {}, { id: row.id, generation: row.generation }] },
            data: { generation: { increment: 1 }, updated_at: now },
            select: { id: true, generation: true },
          }),
        ),
      );
      return bumped.flat().map((row) => ({ messageId: row.id, generation: row.generation }));
    },
  });
}
