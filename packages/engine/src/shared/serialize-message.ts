import type { DeliveryAttemptRow, MessageRow } from "@svc/store";

/** A message row, with its attempts when they were read (a fresh message has none). */
export type MessageForView = MessageRow & { attempts?: DeliveryAttemptRow[] };

/** Message JSON (docs/messages.md). No tokens or review URLs; content holds link placeholders only. */
export function serializeMessage(row: MessageForView) {
  const iso = (date: Date | null) => date?.toISOString() ?? null;
  return {
    id: row.id,
    status: row.status,
    status_reason: row.status_reason,
    recipient: row.recipient_external_id,
    agent: row.agent_key,
    category: row.category,
    template: row.template,
    rule: row.rule,
    event_id: row.event_id,
    broadcast_id: row.broadcast_id,
    digest_id: row.digest_id,
    importance: row.importance,
    claimed_importance: row.claimed_importance,
    channels: row.channels,
    channel: row.channel,
    content: row.content ?? null,
    data: row.data ?? {},
    send_at: row.send_at.toISOString(),
    expires_at: iso(row.expires_at),
    approval_expires_at: iso(row.approval_expires_at),
    reviewed_by: row.reviewed_by,
    reviewed_by_key_id: row.reviewed_by_key_id,
    reviewed_at: iso(row.reviewed_at),
    screening: row.screening ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    sent_at: iso(row.sent_at),
    delivered_at: iso(row.delivered_at),
    attempts: (row.attempts ?? [])
      .slice()
      .sort((a, b) => a.at.getTime() - b.at.getTime())
      .map((a) => ({
        channel: a.channel,
        provider: a.provider,
        at: a.at.toISOString(),
        ok: a.ok,
        error: a.error,
      })),
    engagement: {
      opened_at: iso(row.opened_at),
      clicked_at: iso(row.clicked_at),
      converted_at: iso(row.converted_at),
    },
  };
}

export type MessageView = ReturnType<typeof serializeMessage>;
