import { claimQueuedMessage, findMessage, takeOverLapsedLease, type MessageRow } from "@svc/store";
import type { DeliveryDeps } from "../shared/delivery-types";

// The claim (docs/delivery.md "Claims and leases"): compare-and-set to `sending` with a lease, only
// for the job's own generation. `queued` rows are claimed once due; `sending` rows once their lease
// ran out (a retry parked until then, or a worker that died or stalled mid-send).

export type ClaimResult =
  | { kind: "claimed"; message: MessageRow }
  /** Older job, final row, held, cancelled, or another worker won the race: nothing to do. */
  | { kind: "skip"; reason: string }
  /** A queued row before its send time: a job for the next generation waits for it. */
  | { kind: "not_due"; message: MessageRow }
  /** A live lease of this generation: another run of this job may still be sending. */
  | { kind: "leased"; until: Date };

export async function claimMessage(
  deps: Pick<DeliveryDeps, "prisma" | "config" | "logger">,
  messageId: string,
  generation: number,
  now: Date,
): Promise<ClaimResult> {
  const row = await findMessage(deps.prisma, messageId);
  if (!row) return { kind: "skip", reason: "missing" };
  if (row.generation !== generation) return { kind: "skip", reason: "stale generation" };
  const claim = {
    id: messageId,
    generation,
    now,
    leaseUntil: new Date(now.getTime() + deps.config.worker.lease_seconds * 1000),
  };

  if (row.status === "queued") {
    if (row.send_at.getTime() > now.getTime()) return { kind: "not_due", message: row };
    const claimed = await claimQueuedMessage(deps.prisma, claim);
    return claimed ? { kind: "claimed", message: claimed } : { kind: "skip", reason: "lost the claim" };
  }
  if (row.status === "sending") {
    if (row.lease_until && row.lease_until.getTime() > now.getTime())
      return { kind: "leased", until: row.lease_until };
    const claimed = await takeOverLapsedLease(deps.prisma, claim);
    // Expected after a crash; while every worker lives it means a run stalled past its lease.
    if (claimed)
      deps.logger.warn("delivery lease taken over", {
        message_id: messageId,
        generation,
        lease_until: row.lease_until?.toISOString() ?? null,
      });
    return claimed ? { kind: "claimed", message: claimed } : { kind: "skip", reason: "lost the claim" };
  }
  return { kind: "skip", reason: row.status };
}
