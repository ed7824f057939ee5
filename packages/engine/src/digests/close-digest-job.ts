import { requeueStuck, type JobHandler, type Queues, type Sweep } from "@svc/queue";
import { findOpenDigestsDueBefore, type RootDatabase } from "@svc/store";
import { closeDigest, type CloseDigestDeps, type PendingDelivery } from "./close-digest";

// Job ids of `close-digest` besides the catalog's `<digest>` (the job delayed until `closes_at`):
// BullMQ ignores an add whose id still exists, so "close now" needs ids of its own.
export const closeDigestJobIds = {
  /** `send_after` reached or `POST /v1/digests/{id}/send` (join-digest uses the same id). */
  now: (digestId: string) => `${digestId}-full`,
  /** The sweep's re-enqueue of a due digest whose job was lost. */
  due: (digestId: string) => `${digestId}-due`,
  /** A job that ran before `closes_at` (clock skew) runs again at it. */
  at: (digestId: string, closesAt: Date) => `${digestId}-at-${closesAt.getTime()}`,
};

export interface CloseDigestJobDeps extends CloseDigestDeps {
  queues: Pick<Queues, "enqueue" | "enqueueBulk">;
}

/** The `close-digest` job: close, then (after the commit) enqueue the message's delivery. */
export function closeDigestJob(deps: CloseDigestJobDeps): JobHandler<"close-digest"> {
  return async ({ digestId }) => {
    const result = await closeDigest(deps, digestId);
    if (result.status === "not_due") {
      await deps.queues.enqueue(
        "close-digest",
        { digestId },
        { sendAt: result.closesAt, jobId: closeDigestJobIds.at(digestId, result.closesAt) },
      );
    } else if (result.status === "sent" || result.status === "skipped") {
      await enqueueDelivery(deps.queues, result.delivery);
    }
    return result.status === "sent"
      ? { status: "sent", messageId: result.messageId, messageStatus: result.messageStatus }
      : result;
  };
}

async function enqueueDelivery(
  queues: Pick<Queues, "enqueue">,
  delivery: PendingDelivery | null,
): Promise<void> {
  if (!delivery) return;
  await queues.enqueue(
    "deliver-message",
    { messageId: delivery.messageId, generation: delivery.generation },
    { sendAt: delivery.sendAt },
  );
}

/** Open digests due longer than this are presumed to have lost their job (the job itself runs on time). */
export const DUE_DIGEST_GRACE_MS = 30_000;
const BATCH = 500;

/**
 * Sweep `close-due-digests`: open digests past `closes_at` (plus the grace) get a close job under
 * a stable id, for a crash between commit and enqueue or a job lost in Redis.
 */
export function closeDueDigestsSweep(
  deps: { prisma: RootDatabase; queues: Pick<Queues, "enqueueBulk"> },
  every = 15_000,
): Sweep {
  return {
    name: "close-due-digests",
    every,
    run: ({ now }) => {
      const dueBefore = new Date(now.getTime() - DUE_DIGEST_GRACE_MS);
      return requeueStuck({
        queues: deps.queues,
        job: "close-digest",
        limit: BATCH,
        jobId: ({ digestId }) => closeDigestJobIds.due(digestId),
        list: async (limit) =>
          (await findOpenDigestsDueBefore(deps.prisma, dueBefore, limit)).map((digestId) => ({ digestId })),
      });
    },
  };
}
