import { reasonCode } from "@svc/core";
import { metrics } from "@svc/log";

// What the use cases report to Prometheus (docs/operations.md "Metrics"). Reasons become their
// code (`frequency_cap`, not `frequency_cap: 2 per P1D`); a list of provider errors has none and
// counts as `provider_error`, so label values stay a small set.

type FinalStatus = "sent" | "delivered" | "failed" | "suppressed" | "cancelled";

export function recordFinalMessage(status: FinalStatus, reason: string | null, count = 1): void {
  if (count <= 0) return;
  const code = reason === null ? "" : (reasonCode(reason) ?? "provider_error");
  metrics.messagesFinal.inc({ status, reason: code }, count);
}

const FINAL_STATUSES: readonly string[] = ["sent", "delivered", "failed", "suppressed", "cancelled"];

/** Counts the rows in a final status (others, such as `queued` or `pending_approval`, are not). */
export function recordFinalRows(rows: readonly { status: string; status_reason: string | null }[]): void {
  for (const row of rows)
    if (FINAL_STATUSES.includes(row.status)) recordFinalMessage(row.status as FinalStatus, row.status_reason);
}

export function countDeliveryAttempts(
  attempts: readonly { channel: string; provider: string; ok: boolean; retryable: boolean }[],
): void {
  for (const a of attempts) {
    const outcome = a.ok ? "ok" : a.retryable ? "retryable" : "permanent";
    metrics.deliveryAttempts.inc({ channel: a.channel, provider: a.provider, outcome });
  }
}

export function recordEventToSent(eventCreatedAt: Date | null, sentAt: Date): void {
  if (eventCreatedAt === null) return;
  metrics.eventToSentSeconds.observe(Math.max(0, sentAt.getTime() - eventCreatedAt.getTime()) / 1000);
}

export function recordCallback(outcome: "delivered" | "retry" | "failed"): void {
  metrics.callbackDeliveries.inc({ outcome });
}

export function recordWebhookTry(
  endpointId: string,
  outcome: "succeeded" | "retry" | "failed" | "deferred",
): void {
  metrics.webhookDeliveries.inc({ endpoint: endpointId, outcome });
}

export function recordWebhookEndpointDisabled(reason: "gone" | "failing"): void {
  metrics.webhookEndpointsDisabled.inc({ reason });
}

/** An inbox stream opened (+1) or closed (-1) in this process. */
export function countInboxStreams(change: 1 | -1): void {
  metrics.inboxStreams.inc(change);
}

export function countInboxStreamEvent(event: "item" | "update" | "counts"): void {
  metrics.inboxStreamEvents.inc({ event });
}
