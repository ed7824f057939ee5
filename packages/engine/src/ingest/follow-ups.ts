import type { BulkItem } from "@svc/queue";
import { handOffJobs, type HandOffDeps } from "../shared/hand-off";
import { deliveryJobsFor } from "../delivery/delivery-jobs";
import { ingestJobFor } from "../events/commit-events";
import { openDigestsAmong, outcomesWithResults, queuedMessagesAmong, type RootDatabase } from "@svc/store";
import type { FollowUps } from "./ingest-types";

/**
 * One hand-off (shared/hand-off.ts: due deliveries to this process's own delivery when it has
 * one, the rest in one bulk add). Deliveries due now go as `deliver-messages` jobs
 * (delivery-jobs.ts) (one job, not one per message); later ones wait as their own delayed `deliver-message` job.
 * `close-digest` runs at `closes_at` under the digest's stable job id; a digest that reached
 * `send_after` gets a second job id that runs now, since BullMQ ignores an add whose id (the
 * delayed one) still exists. Closing twice is a no-op for the closer. Notices of held messages
 * (`svc.approval_requested`) go as one ingest job.
 */
export async function enqueueFollowUps(deps: HandOffDeps, followUps: FollowUps, now: Date): Promise<void> {
  const due = followUps.deliveries.filter((d) => d.sendAt.getTime() <= now.getTime());
  const later = followUps.deliveries.filter((d) => d.sendAt.getTime() > now.getTime());
  const items: BulkItem[] = [
    ...deliveryJobsFor(due.map((d) => ({ messageId: d.messageId, generation: d.generation }))),
    ...later.map((d): BulkItem<"deliver-message"> => ({
      name: "deliver-message",
      payload: { messageId: d.messageId, generation: d.generation },
      opts: { sendAt: d.sendAt },
    })),
    ...(followUps.notices.length > 0 ? [ingestJobFor(followUps.notices)] : []),
    ...followUps.digests.map((d): BulkItem<"close-digest"> => ({
      name: "close-digest",
      payload: { digestId: d.digestId },
      opts: d.full ? { sendAt: d.closesAt, jobId: `${d.digestId}-full` } : { sendAt: d.closesAt },
    })),
  ];
  if (items.length > 0) await handOffJobs(deps, items);
}

/**
 * Follow-ups of an event already processed, for a job retried after its commit but before its
 * enqueue went through: messages still queued and digests still open. Stable job ids make the
 * repeat harmless.
 */
export async function followUpsOfProcessed(
  prisma: RootDatabase,
  eventId: string,
  now: Date,
): Promise<FollowUps> {
  const outcomes = await outcomesWithResults(prisma, eventId);
  const messageIds = outcomes.flatMap((o) => (o.message_id ? [o.message_id] : []));
  const digestIds = outcomes.flatMap((o) => (o.digest_id ? [o.digest_id] : []));
  const [messages, digests] = await Promise.all([
    queuedMessagesAmong(prisma, messageIds),
    openDigestsAmong(prisma, digestIds),
  ]);
  return {
    deliveries: messages.map((m) => ({ messageId: m.id, generation: m.generation, sendAt: m.send_at })),
    // A due digest may sit behind its delayed job: the `-full` id reaches it now.
    digests: digests.map((d) => ({
      digestId: d.id,
      closesAt: d.closes_at,
      full: d.closes_at.getTime() <= now.getTime(),
    })),
    // Notices of held messages are events: the pending-events sweep ingests any whose job was lost.
    notices: [],
  };
}
