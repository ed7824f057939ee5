// The webhook event types (docs/webhooks.md) and the filters an endpoint subscribes with.
// `webhook.test` is not among them: it is sent only by POST /v1/webhooks/{id}/test.

export const WEBHOOK_EVENT_TYPES = [
  "message.queued",
  "message.pending_approval",
  "message.sent",
  "message.delivered",
  "message.failed",
  "message.suppressed",
  "message.cancelled",
  "message.engaged",
  "event.processed",
  "event.failed",
  "digest.sent",
  "broadcast.completed",
  "approval.decided",
  "recipient.preferences_changed",
  "recipient.erased",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const TYPES: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);
const FAMILIES: ReadonlySet<string> = new Set(
  WEBHOOK_EVENT_TYPES.map((type) => type.slice(0, type.indexOf("."))),
);

export function isWebhookEventType(type: string): type is WebhookEventType {
  return TYPES.has(type);
}

/** `*`, a family `message.*`, or a type. */
export function isWebhookEventFilter(filter: string): boolean {
  if (filter === "*") return true;
  if (filter.endsWith(".*")) return FAMILIES.has(filter.slice(0, -2));
  return TYPES.has(filter);
}

/** Whether an endpoint subscribed with `filter` hears events of `type` (only the listed types). */
export function webhookFilterMatches(filter: string, type: string): boolean {
  if (!TYPES.has(type)) return false;
  if (filter === "*") return true;
  if (filter.endsWith(".*")) return FAMILIES.has(filter.slice(0, -2)) && type.startsWith(filter.slice(0, -1));
  return filter === type;
}
