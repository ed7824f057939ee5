import { channelAddresses, gaveUpReason, providerErrorsReason, REASON } from "@svc/core";
import { inboxChannelNames } from "@svc/config";
import {
  bumpMessageGeneration,
  currentRunAttempts,
  finishSendingMessage,
  recordDeliveryAttempts,
  type MessageRow,
  type RecheckFacts,
} from "@svc/store";
import { claimMessage } from "./claim-message";
import { channelError, planRetry, runStateOf, tryOutcome } from "./delivery-run";
import { deliveryBatches, type DeliveryBatches } from "./delivery-batches";
import { leaseKeeperFor, type HeldClaim } from "./lease-keeper";
import { recheckFromFacts } from "./recheck-before-sending";
import { countDeliveryAttempts, recordEventToSent, recordFinalMessage } from "../metrics/record-metrics";
import type { DeliveryDeps } from "../shared/delivery-types";
import { sendToChannel, type AttemptRecord } from "./send-to-channel";
import { textingHoursAt } from "./texting-hours-at-delivery";
import { messageEmission, WEBHOOK_EVENT_TOPIC, webhookEntries, webhookPayload } from "../outbox/emit";

export type DeliveryOutcome =
  | { status: "skipped"; reason: string }
  /** Not due, or a retry parked until `at` under `generation`. */
  | { status: "scheduled"; at: Date; generation: number }
  | { status: "sent"; channel: string }
  | { status: "failed" | "suppressed"; reason: string };

/** A live lease of this generation: BullMQ retries the job, by then the lease ran out or the row moved on. */
class DeliveryLeaseHeldError extends Error {
  override readonly name = "DeliveryLeaseHeldError";
}

/**
 * This run's lease renewals failed long enough that another worker may take the claim over, so it
 * sends nothing (docs/operations.md "A claim that may have lapsed"); BullMQ retries the job, which
 * claims the message again.
 */
export class DeliveryClaimMayHaveLapsedError extends Error {
  override readonly name = "DeliveryClaimMayHaveLapsedError";
}

/**
 * The `deliver-message` use case (from `queued`: docs/messages.md, docs/delivery.md): claim, re-check,
 * screening seam, then the planned channels in order. Provider sends are at least once: a crash
 * after a provider accepted and before the `sent` write, or a slow worker whose lease was taken over,
 * sends again; the message id is every provider's idempotency key. Internal state changes once.
 */
export async function deliverMessage(
  deps: DeliveryDeps,
  messageId: string,
  generation: number,
): Promise<DeliveryOutcome> {
  const now = deps.now();
  const batches = deliveryBatches(deps);
  // The common case, a due `queued` row, is claimed together with the other jobs running now;
  // anything else (retry, lease, early job, stale job) goes through the one-row claim.
  // The batched claim reads the re-check facts in the same statement; the one-row claim does not.
  const due = await batches.claimDue.add({ messageId, generation });
  let message: MessageRow;
  let facts: RecheckFacts | null = null;
  if (due) ({ message, facts } = due);
  else {
    const claim = await claimMessage(deps, messageId, generation, now);
    if (claim.kind === "skip") return { status: "skipped", reason: claim.reason };
    if (claim.kind === "leased")
      throw new DeliveryLeaseHeldError(`message ${messageId} is leased until ${claim.until.toISOString()}`);
    if (claim.kind === "not_due")
      return scheduleNext(deps, claim.message, "queued", claim.message.send_at, now);
    message = claim.message;
  }
  // The lease is renewed while this run holds the claim (lease-keeper.ts).
  const held = leaseKeeperFor(deps).hold(message);
  try {
    return await deliverClaimed(deps, batches, message, facts, held);
  } finally {
    held.release();
  }
}

async function deliverClaimed(
  deps: DeliveryDeps,
  batches: DeliveryBatches,
  message: MessageRow,
  factsAtClaim: RecheckFacts | null,
  held: HeldClaim,
): Promise<DeliveryOutcome> {
  const now = deps.now();
  const recheck = factsAtClaim
    ? recheckFromFacts(message, factsAtClaim, now)
    : await batches.recheck.add({ message, now });
  if (!recheck.ok) return finish(deps, message, "suppressed", recheck.reason, now);
  // Screening seam (docs/screening.md): an agent message without a verdict goes to screening here.
  const screening = await deps.screen(message, now);
  if (screening.action === "stop") return { status: "skipped", reason: "screening" };

  const run = runStateOf(await currentRunAttempts(deps.prisma, message));
  const links = await deps.links(message, now);
  const permanentErrors = [...run.failedChannels.values()];
  const inboxChannels = inboxChannelNames(deps.config.channels);
  for (const channel of recheck.channels) {
    if (run.failedChannels.has(channel)) continue;
    const provider = deps.providers.get(channel);
    const addresses = channelAddresses(recheck.recipient.addresses, channel, inboxChannels);
    if (!provider || addresses.length === 0) continue;

    // Texting hours (docs/texting.md "At delivery"): a text channel outside legal hours waits for
    // the next opening, as a parked retry would; channels that failed before it are not tried again.
    const hours = textingHoursAt(deps, message, recheck, channel, deps.now());
    if (hours.kind === "expired") return finish(deps, message, "suppressed", REASON.expired, deps.now());
    if (hours.kind === "wait") return waitForTextingHours(deps, message, channel, hours.until);

    const at = deps.now();
    if (!held.safeToSend(at))
      throw new DeliveryClaimMayHaveLapsedError(
        `message ${message.id}: its lease was not renewed in time, another worker may take it over; not sending`,
      );
    const attempts = await sendToChannel(deps, {
      message,
      channel,
      provider,
      addresses,
      recipient: recheck.recipient,
      allowUnsubscribe: recheck.allowUnsubscribe,
      links,
    });
    countDeliveryAttempts(attempts);
    const outcome = tryOutcome(attempts);
    if (outcome === "sent") {
      // Attempts, `sent` and its webhook events in one write, batched with the other jobs'
      // (writeSentMessages).
      const sentAt = deps.now();
      const written = await batches.writeSent.add({
        message,
        channel,
        at,
        attempts,
        sentAt,
        outbox: sentWebhookEvents(message.id, sentAt),
      });
      if (!written.won) {
        // Another run took the claim over meanwhile (docs/operations.md "Recovery guarantees").
        deps.logger.warn("delivery lease lost after sending", { message_id: message.id, channel });
        return { status: "skipped", reason: "lease lost after sending" };
      }
      recordFinalMessage("sent", null);
      recordEventToSent(written.eventCreatedAt, sentAt);
      return { status: "sent", channel };
    }
    await recordDeliveryAttempts(deps.prisma, message.id, at, attempts);
    if (outcome === "retry") {
      return retryOrGiveUp(deps, message, attempts, run.retries + 1, run.firstAttemptAt ?? at);
    }
    permanentErrors.push(channelError(attempts));
  }
  if (permanentErrors.length === 0)
    return finish(deps, message, "failed", REASON.noReachableChannel, deps.now());
  return finish(deps, message, "failed", providerErrorsReason(permanentErrors), deps.now());
}

// Retries are scheduled here rather than by BullMQ's backoff, which cannot see a provider's
// Retry-After: the row stays `sending` with its lease parked until the retry time, under the next
// generation, and the job for that generation waits in the queue. If that job is lost, the lease
// runs out and the reclaim-leases sweep brings the message back.
async function retryOrGiveUp(
  deps: DeliveryDeps,
  message: MessageRow,
  attempts: AttemptRecord[],
  retries: number,
  firstAttemptAt: Date,
): Promise<DeliveryOutcome> {
  const now = deps.now();
  const retryAfters = attempts.flatMap((a) =>
    a.retryable && a.retryAfterMs !== undefined ? [a.retryAfterMs] : [],
  );
  const plan = planRetry({
    now,
    retries,
    firstAttemptAt,
    retryAfterMs: retryAfters.length > 0 ? Math.min(...retryAfters) : undefined,
    baseMs: deps.retryBaseMs,
    maxAttempts: deps.config.worker.max_attempts,
    maxDeferSeconds: deps.config.worker.max_defer_seconds,
    random: (deps.random ?? Math.random)(),
  });
  const error = channelError(attempts.filter((a) => !a.ok && a.retryable));
  if (plan.kind === "give_up") return finish(deps, message, "failed", gaveUpReason(error), now);
  deps.logger.warn("delivery will retry", {
    message_id: message.id,
    channel: attempts[0]?.channel,
    retries,
    retry_at: plan.at.toISOString(),
  });
  return scheduleNext(deps, message, "sending", plan.at, now);
}

/** Parked like a retry until the channel's next legal moment, which becomes the message's `send_at`. */
function waitForTextingHours(
  deps: DeliveryDeps,
  message: MessageRow,
  channel: string,
  until: Date,
): Promise<DeliveryOutcome> {
  deps.logger.info("delivery waits for texting hours", {
    message_id: message.id,
    channel,
    until: until.toISOString(),
  });
  return scheduleNext(deps, message, "sending", until, deps.now(), { moveSendAt: true });
}

async function scheduleNext(
  deps: DeliveryDeps,
  message: MessageRow,
  status: "queued" | "sending",
  at: Date,
  now: Date,
  options: { moveSendAt?: boolean } = {},
): Promise<DeliveryOutcome> {
  const sendAt = options.moveSendAt ? { sendAt: at } : {};
  const next = await bumpMessageGeneration(
    deps.prisma,
    { id: message.id, generation: message.generation, status },
    status === "sending" ? { leaseUntil: at, now, ...sendAt } : { now, ...sendAt },
  );
  if (!next) return { status: "skipped", reason: "moved on" };
  await deps.queues.enqueue(
    "deliver-message",
    { messageId: next.id, generation: next.generation },
    { sendAt: at },
  );
  return { status: "scheduled", at, generation: next.generation };
}

async function finish(
  deps: DeliveryDeps,
  message: MessageRow,
  status: "failed" | "suppressed",
  reason: string,
  now: Date,
): Promise<DeliveryOutcome> {
  const event = messageEmission(`message.${status}`, { id: message.id, status, status_reason: reason }, now);
  const won = await finishSendingMessage(deps.prisma, message, status, reason, now, webhookEntries([event]));
  if (!won) return { status: "skipped", reason: "lease lost" };
  recordFinalMessage(status, reason);
  deps.logger.info(`delivery ${status}`, { message_id: message.id, status_reason: reason });
  return { status, reason };
}

// `message.sent`, and `message.delivered` too when a delivered report overtook the send.
function sentWebhookEvents(messageId: string, sentAt: Date) {
  const event = (status: "sent" | "delivered") =>
    webhookPayload(
      messageEmission(`message.${status}`, { id: messageId, status, status_reason: null }, sentAt),
    );
  return { topic: WEBHOOK_EVENT_TOPIC, sent: event("sent"), delivered: event("delivered") };
}
