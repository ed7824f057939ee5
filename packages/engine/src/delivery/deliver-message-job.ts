import type { SvcConfig } from "@svc/config";
import { JOBS, type JobHandler } from "@svc/queue";
import type { MessageRow, RootDatabase } from "@svc/store";
import { requireSecretKey } from "../links/link-tokens";
import { batchDeliveryLinks } from "./delivery-links-batch";
import { deliverMessage } from "./deliver-message";
import type { DeliveryDeps, DeliveryLinkSource } from "../shared/delivery-types";
import { microBatcher } from "../shared/micro-batch";
import { noScreening } from "../shared/screening-gate";

export type DeliveryJobDeps = Omit<DeliveryDeps, "links" | "screen" | "retryBaseMs"> &
  Partial<Pick<DeliveryDeps, "links" | "screen" | "retryBaseMs">>;

/** The `deliver-message` job. Unexpected errors (database, Redis) throw and BullMQ retries the job. */
export function deliverMessageJob(deps: DeliveryJobDeps): JobHandler<"deliver-message"> {
  const full: DeliveryDeps = {
    ...deps,
    links: deps.links ?? storedLinkSource(deps.prisma, deps.config),
    screen: deps.screen ?? noScreening,
    retryBaseMs: deps.retryBaseMs ?? JOBS["deliver-message"].backoffMs,
  };
  return ({ messageId, generation }) => deliverMessage(full, messageId, generation);
}

/**
 * The `deliver-messages` job: the messages one ingest batch queued for now, each delivered as by
 * its own job (so they share the worker's batched queries). If any throws, the job fails and its
 * retry runs them all again: the claim is a compare-and-set on status and generation, so the ones
 * already handled are no-ops and only the rest are tried.
 */
export function deliverMessagesJob(deliver: JobHandler<"deliver-message">): JobHandler<"deliver-messages"> {
  return async ({ messages }, job) => {
    const context = { ...job, name: "deliver-message" as const };
    const settled = await Promise.allSettled(messages.map((m) => deliver(m, context)));
    const failed = settled.flatMap((s, i) =>
      s.status === "rejected" ? [{ m: messages[i]!, error: s.reason }] : [],
    );
    if (failed.length === 0) return { delivered: messages.length };
    const first = failed[0]!;
    const reason = first.error instanceof Error ? first.error.message : String(first.error);
    throw new Error(
      `${failed.length} of ${messages.length} deliveries failed (${first.m.messageId}: ${reason})`,
    );
  };
}

/**
 * Link values from the message's nonce and the person's preference token (their hashes stored for
 * lookup), for the jobs running at once in one round trip. Without `SVC_SECRET_KEY` (only a bare
 * test setup) placeholders are left empty.
 */
function storedLinkSource(prisma: RootDatabase, config: SvcConfig): DeliveryLinkSource {
  const batcher = microBatcher(async (items: { message: MessageRow; now: Date }[]) =>
    batchDeliveryLinks(
      prisma,
      { secretKey: requireSecretKey(config), publicUrl: config.api.public_url },
      items.map((i) => i.message),
      items[0]!.now,
    ),
  );
  return async (message, now) => {
    if (!config.secrets.secretKey)
      return {
        preferences_url: null,
        unsubscribe_url: null,
        one_click_url: null,
        tracking_token: null,
        review_url: null,
      };
    return batcher.add({ message, now });
  };
}
