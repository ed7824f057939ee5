import type { WebhookEventType } from "@svc/core";
import type { NewOutboxEntry, Transaction } from "@svc/store";
import { recordOutbox } from "./outbox";

// Emitting webhook events (docs/webhooks.md, docs/outbox.md): each change that a backend hears
// about writes a `webhook.event` outbox entry in the transaction of the change. The entry freezes
// what must not move before it is sent (a status, a person's consent change); the relay's consumer
// builds the body from the resource at fan-out time and lays the snapshot over it.

export const WEBHOOK_EVENT_TOPIC = "webhook.event";

export type WebhookSubjectKind = "message" | "event" | "digest" | "broadcast" | "approval" | "recipient";

export interface WebhookEmission {
  type: WebhookEventType;
  occurredAt: Date;
  subject: { kind: WebhookSubjectKind; id: string };
  /** What the change froze (never a token, a link or a placeholder). */
  snapshot?: Record<string, unknown>;
}

/** The outbox payload of one webhook event (the shape the consumer reads). */
export function webhookPayload(event: WebhookEmission): NewOutboxEntry["payload"] {
  const payload: Record<string, unknown> = {
    type: event.type,
    occurred_at: event.occurredAt.toISOString(),
    subject: { kind: event.subject.kind, id: event.subject.id },
  };
  if (event.snapshot !== undefined) payload.snapshot = jsonSafe(event.snapshot);
  return payload as NewOutboxEntry["payload"];
}

export function webhookEntries(events: readonly WebhookEmission[]): NewOutboxEntry[] {
  return events.map((event) => ({
    topic: WEBHOOK_EVENT_TOPIC,
    payload: webhookPayload(event),
    notify: null,
  }));
}

/** Writes the events under `tx`, the transaction of the change, in one insert. */
export function emitWebhookEvents(tx: Transaction, events: readonly WebhookEmission[]): Promise<void> {
  return recordOutbox(tx, webhookEntries(events));
}

/** A message's event: its status and reason as the change left them, plus `extra` facts. */
export function messageEmission(
  type: WebhookEventType,
  message: { id: string; status: string; status_reason: string | null },
  occurredAt: Date,
  extra: Record<string, unknown> = {},
): WebhookEmission {
  return {
    type,
    occurredAt,
    subject: { kind: "message", id: message.id },
    snapshot: { status: message.status, status_reason: message.status_reason, ...extra },
  };
}

/**
 * The entry a bulk status change writes per message (the store sets each message's id):
 * `message.<status>` with the status and reason frozen.
 */
export function messageStatusPerRow(
  status: "suppressed" | "cancelled",
  reason: string,
  occurredAt: Date,
): { topic: string; payload: NewOutboxEntry["payload"] } {
  const event = messageEmission(`message.${status}`, { id: "", status, status_reason: reason }, occurredAt);
  return { topic: WEBHOOK_EVENT_TOPIC, payload: webhookPayload(event) };
}

/** `broadcast.completed` for the broadcast a bulk statement completes (the store sets its id). */
export function broadcastCompletedPerRow(occurredAt: Date): {
  topic: string;
  payload: NewOutboxEntry["payload"];
} {
  const event: WebhookEmission = {
    type: "broadcast.completed",
    occurredAt,
    subject: { kind: "broadcast", id: "" },
    snapshot: { status: "completed", completed_at: occurredAt },
  };
  return { topic: WEBHOOK_EVENT_TOPIC, payload: webhookPayload(event) };
}

/**
 * `recipient.preferences_changed` for one consent-ledger entry: the whole data frozen (the person
 * may be erased before it is sent).
 */
export function preferencesChangedEmission(
  recipient: { id: string; external_id: string },
  entry: { source: string; changes: Record<string, unknown>; created_at: Date },
): WebhookEmission {
  return {
    type: "recipient.preferences_changed",
    occurredAt: entry.created_at,
    subject: { kind: "recipient", id: recipient.id },
    snapshot: {
      external_id: recipient.external_id,
      source: entry.source,
      changes: entry.changes,
      created_at: entry.created_at,
    },
  };
}

/**
 * A held message's decision (docs/approvals.md "Held messages"): `approval.decided` about the
 * message (subject `approval`, the message's id), then the message's own new status.
 */
export function heldMessageDecisionEmissions(
  message: { id: string; status: string; status_reason: string | null },
  decision: { status: "approved" | "rejected" | "expired"; decidedBy: string | null; decidedAt: Date },
  occurredAt: Date,
): WebhookEmission[] {
  return [
    {
      type: "approval.decided",
      occurredAt,
      subject: { kind: "approval", id: message.id },
      snapshot: { status: decision.status, decided_by: decision.decidedBy, decided_at: decision.decidedAt },
    },
    ...messageStatusEmissions([message], occurredAt),
  ];
}

/** The events of messages just written with their status (composition, ingest): one per reported status. */
export function messageStatusEmissions(
  messages: readonly { id: string; status: string; status_reason: string | null }[],
  occurredAt: Date,
): WebhookEmission[] {
  return messages.flatMap((message) => {
    const type = messageEventTypeOf(message.status);
    return type ? [messageEmission(type, message, occurredAt)] : [];
  });
}

/** The event type a message status reports, if any (the states a backend hears about). */
export function messageEventTypeOf(status: string): WebhookEventType | null {
  return MESSAGE_STATUS_EVENTS[status] ?? null;
}

const MESSAGE_STATUS_EVENTS: Record<string, WebhookEventType> = {
  queued: "message.queued",
  pending_approval: "message.pending_approval",
  sent: "message.sent",
  delivered: "message.delivered",
  failed: "message.failed",
  suppressed: "message.suppressed",
  cancelled: "message.cancelled",
};

// Dates become ISO text and undefined fields drop out, as JSON would have them.
function jsonSafe(value: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
