import { AppError, type Principal } from "@svc/core";
import type { Queues } from "@svc/queue";
import { closeDigestWindowNow, type RootDatabase } from "@svc/store";
import { closeDigestJobIds } from "./close-digest-job";
import { loadDigestFor, serializeDigest, type DigestView } from "./read-digests";

export interface SendDigestNowDeps {
  prisma: RootDatabase;
  queues: Pick<Queues, "enqueue">;
  now: () => Date;
  logger: { warn(message: string, meta?: Record<string, unknown>): void };
}

/**
 * `POST /v1/digests/{id}/send` (docs/digests.md, "API"): the window closes now and a worker sends
 * the digest. Compare-and-set on `open`; any other state is 409 `Invalid state`. Should Redis
 * refuse the job, the digest is due anyway and the `close-due-digests` sweep sends it.
 */
export async function sendDigestNow(
  deps: SendDigestNowDeps,
  principal: Principal,
  id: string,
): Promise<DigestView> {
  await loadDigestFor(deps.prisma, principal, id);
  const now = deps.now();
  // A digest already due keeps its `closes_at`; one being closed right now stays open until sent.
  await closeDigestWindowNow(deps.prisma, id, now);
  const row = await loadDigestFor(deps.prisma, principal, id);
  if (row.status !== "open") {
    throw new AppError("invalid_state", `digest is ${row.status}; only open digests can be sent`);
  }
  try {
    await deps.queues.enqueue("close-digest", { digestId: id }, { jobId: closeDigestJobIds.now(id) });
  } catch (error) {
    deps.logger.warn("close-digest not enqueued; the sweep will close the digest", {
      digest_id: id,
      error: (error as Error).message,
    });
  }
  return serializeDigest(row);
}
