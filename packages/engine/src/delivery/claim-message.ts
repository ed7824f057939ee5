import type { MessageRow } from "@svc/store";
import type { DeliveryDeps } from "./delivery-types";

// The claim (ARCHITECTURE "How data flows" 4): compare-and-set to `sending` with a lease, only for
// the job's own generation. `queued` rows are claimed once due; `sending` rows once their lease ran
// out (a retry parked until then, or a worker that died or stalled mid-send).

export type ClaimResult =
  | { kind: "claimed"; message: MessageRow }
  /** Older job, final row, held, cancelled, or another worker won the race: nothing to do. */
  | { kind: "skip"; reason: string }
  /** A queued row before its send time: a job for the next generation waits for it. */
  | { kind: "not_due"; message: MessageRow }
  /** A live lease of this generation: another run of this job may still be sending. */
  | { kind: "leased"; until: Date };

export async function claimMessage(
  deps: Pick<DeliveryDeps, "prisma" | "config">,
  messageId: string,
  generation: number,
  now: Date,
): Promise<ClaimResult> {
  const row = await deps.prisma.message.findUnique({ where: { id: messageId } });
  if (!row) return { kind: "skip", reason: "missing" };
  if (row.generation !== generation) return { kind: "skip", reason: "stale generation" };
  const leaseUntil = new Date(now.getTime() + deps.config.worker.lease_seconds * 1000);

  if (row.status === "queued") {
    if (row.send_at.getTime() > now.getTime()) return { kind: "not_due", message: row };
    // A claim from `queued` starts a delivery run: its attempt counter starts over.
    const claimed = await deps.prisma.message.updateManyAndReturn({
      where: { id: messageId, generation, status: "queued", send_at: { lte: now } },
      data: { status: "sending", lease_until: leaseUntil, delivery_attempts: 0, updated_at: now },
    });
    return claimed[0] ? { kind: "claimed", message: claimed[0] } : { kind: "skip", reason: "lost the claim" };
  }
  if (row.status === "sending") {
    if (row.lease_until && row.lease_until.getTime() > now.getTime())
      return { kind: "leased", until: row.lease_until };
    const claimed = await deps.prisma.message.updateManyAndReturn({
      where: {
        id: messageId,
        generation,
        status: "sending",
        OR: [{ lease_until: null }, { lease_until: { lte: now } }],
      },
      data: { lease_until: leaseUntil, updated_at: now },
    });
    return claimed[0] ? { kind: "claimed", message: claimed[0] } : { kind: "skip", reason: "lost the claim" };
  }
  return { kind: "skip", reason: row.status };
}

/**
 * Moves a row of this generation to the next one and returns it, so a job under the new id can be
 * enqueued (BullMQ ignores adds whose id still exists). An in-flight job of the old generation
 * becomes a no-op. Null when the row moved on meanwhile.
 */
export async function bumpGeneration(
  deps: Pick<DeliveryDeps, "prisma">,
  where: { id: string; generation: number; status: "queued" | "sending" },
  data: { lease_until?: Date | null; updated_at: Date },
): Promise<MessageRow | null> {
  const rows = await deps.prisma.message.updateManyAndReturn({
    where,
    data: { ...data, generation: { increment: 1 } },
  });
  return rows[0] ?? null;
}
