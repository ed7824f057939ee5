import { fillLinkPlaceholders } from "@svc/core";
import {
  findApprovalRequest,
  findDigestWithItems,
  findEventWithOutcomes,
  findExistingRecipientIds,
  findMessagesWithAttempts,
  type RootDatabase,
} from "@svc/store";
import { serializeApproval } from "../approvals/approval-requests";
import { getBroadcast } from "../broadcasts/broadcasts-resource";
import { serializeDigest } from "../digests/read-digests";
import { serializeEvent } from "../events/serialize-event";
import { serializeMessage } from "../shared/serialize-message";
import type { WebhookSubjectKind } from "../outbox/emit";

// The `data` of a webhook body (docs/webhooks.md "The body"): the subject as its GET returns it,
// read at fan-out time, with what the change froze (`snapshot`) laid over it. A subject gone by
// then (erased, deleted by retention) leaves the snapshot and its id. Never a token, a link or a
// placeholder: stored content's link placeholders are removed, as an agent's view has them.

/** The payload of a `webhook.event` outbox entry (docs/outbox.md). */
export interface WebhookEventPayload {
  type: string;
  occurred_at: string;
  subject: { kind: WebhookSubjectKind; id: string };
  snapshot?: Record<string, unknown>;
}

const ERASED = "recipient.erased";

const subjectKey = (subject: WebhookEventPayload["subject"]) => `${subject.kind}:${subject.id}`;

/** One event's body data and the person it is about (docs/webhooks.md "Personal data"). */
export interface WebhookData {
  data: Record<string, unknown>;
  /** The subject's recipient: a message's, an event's or a digest's person, a `recipient.*` subject; else null. */
  recipientId: string | null;
}

interface Subject {
  resource: Record<string, unknown> | null;
  recipientId: string | null;
}

/**
 * Builds every event's data; reads each subject once and a batch's messages in one query. Null for
 * a `recipient.*` event (but `recipient.erased`) about a person erased before it was fanned out:
 * it is not sent (docs/webhooks.md "Personal data").
 */
export async function buildWebhookData(
  deps: { prisma: RootDatabase; now: () => Date },
  events: readonly WebhookEventPayload[],
): Promise<(WebhookData | null)[]> {
  const people = [...new Set(events.filter((e) => e.subject.kind === "recipient").map((e) => e.subject.id))];
  const existing = await findExistingRecipientIds(deps.prisma, people);
  const subjects = new Map<string, Subject>();
  const messageIds = [...new Set(events.filter((e) => isMessageSubject(e.subject)).map((e) => e.subject.id))];
  for (const row of await findMessagesWithAttempts(deps.prisma, messageIds))
    subjects.set(`message:${row.id}`, { resource: serializeMessage(row), recipientId: row.recipient_id });
  for (const event of events) {
    const key = subjectKey(event.subject);
    if (subjects.has(key) || isMessageSubject(event.subject)) continue;
    subjects.set(key, await readSubject(deps, event.subject));
  }
  return events.map((event) => {
    if (event.subject.kind === "recipient" && event.type !== ERASED && !existing.has(event.subject.id))
      return null;
    const subject = isMessageSubject(event.subject)
      ? subjects.get(`message:${event.subject.id}`)
      : subjects.get(subjectKey(event.subject));
    return {
      data: withoutPlaceholders(overlay(subject?.resource ?? null, event)) as Record<string, unknown>,
      // A `recipient.*` event names its person even when they are gone by now.
      recipientId: event.subject.kind === "recipient" ? event.subject.id : (subject?.recipientId ?? null),
    };
  });
}

function isMessageSubject(subject: WebhookEventPayload["subject"]): boolean {
  // A held message's decision is an `approval` of a message.
  return subject.kind === "message" || (subject.kind === "approval" && subject.id.startsWith("msg_"));
}

const none: Subject = { resource: null, recipientId: null };

async function readSubject(
  deps: { prisma: RootDatabase; now: () => Date },
  subject: WebhookEventPayload["subject"],
): Promise<Subject> {
  switch (subject.kind) {
    case "event": {
      const row = await findEventWithOutcomes(deps.prisma, subject.id);
      return row ? { resource: serializeEvent(row), recipientId: row.recipient_id } : none;
    }
    case "digest": {
      const row = await findDigestWithItems(deps.prisma, subject.id);
      return row
        ? {
            resource: serializeDigest(row) as unknown as Record<string, unknown>,
            recipientId: row.recipient_id,
          }
        : none;
    }
    case "broadcast": {
      // A broadcast is about its whole audience: no one person.
      const resource = await (
        getBroadcast(deps, subject.id) as Promise<unknown> as Promise<Record<string, unknown>>
      ).catch(() => null);
      return { resource, recipientId: null };
    }
    case "approval": {
      // An approval request (not a held message) names reviewers, no recipient.
      const row = await findApprovalRequest(deps.prisma, subject.id);
      return row ? { resource: serializeApproval(row, deps.now()), recipientId: null } : none;
    }
    default:
      // `recipient.*`: the snapshot is the data (the person may be erased by now).
      return none;
  }
}

function overlay(
  resource: Record<string, unknown> | null,
  event: WebhookEventPayload,
): Record<string, unknown> {
  const snapshot = event.snapshot ?? {};
  if (resource === null)
    return event.subject.kind === "recipient" ? { ...snapshot } : { id: event.subject.id, ...snapshot };
  const data: Record<string, unknown> = { ...resource };
  for (const [key, value] of Object.entries(snapshot)) {
    const current = data[key];
    // `engagement: "opened"` of a message.engaged joins the message's engagement times as `type`.
    if (isObject(current) && !isObject(value)) data[key] = { ...current, type: value };
    else if (isObject(current) && isObject(value)) data[key] = { ...current, ...value };
    else data[key] = value;
  }
  return data;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function withoutPlaceholders(value: unknown): unknown {
  if (typeof value === "string") return value.includes("[[svc:") ? fillLinkPlaceholders(value, {}) : value;
  if (Array.isArray(value)) return value.map(withoutPlaceholders);
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = withoutPlaceholders(inner);
    return out;
  }
  return value;
}
