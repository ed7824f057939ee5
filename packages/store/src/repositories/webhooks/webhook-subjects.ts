import { Prisma } from "../../generated/prisma/client";
import type { MessageRow } from "../../rows";
import type { DeliveryAttemptRow, MessageWithAttempts } from "../messages/message-reads";
import { prismaOf, type Database } from "../../transaction";

// What the webhook fan-out reads to build bodies (docs/webhooks.md "The body"): two statements for
// a batch's messages, the commonest subject, and their attempts, instead of one per event. Written
// as SQL over an array (docs/webhooks.md "What a webhook costs"); the rows are the generated
// model's, as `findMany` returns them (a store test compares the two).

const MESSAGE_COLUMNS = Prisma.sql`id, status::text AS status, status_reason, recipient_id, recipient_external_id,
  sender, agent_key, api_key_id, category, template, rule, event_id, broadcast_id, digest_id,
  importance::text AS importance, claimed_importance::text AS claimed_importance, channels, channel,
  content, data, idempotency_key, request_hash, idempotency_expires_at, dedup_key, send_at, expires_at,
  approval_expires_at, reviewed_by, reviewed_by_key_id, reviewed_at, screening, generation, lease_until,
  delivery_attempts, link_nonce, unsubscribe_token_hash, tracking_token_hash, sent_at, delivered_at,
  opened_at, clicked_at, converted_at, created_at, updated_at`;

export async function findMessagesWithAttempts(
  db: Database,
  ids: readonly string[],
): Promise<MessageWithAttempts[]> {
  if (ids.length === 0) return [];
  const [messages, attempts] = await Promise.all([
    prismaOf(db).$queryRaw<MessageRow[]>(Prisma.sql`
      SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = ANY(${[...ids]}::text[])`),
    prismaOf(db).$queryRaw<DeliveryAttemptRow[]>(Prisma.sql`
      SELECT id, message_id, channel, provider, address, ok, retryable, error, at
        FROM delivery_attempts WHERE message_id = ANY(${[...ids]}::text[]) ORDER BY at, id`),
  ]);
  const byMessage = new Map<string, DeliveryAttemptRow[]>();
  for (const attempt of attempts)
    byMessage.set(attempt.message_id, [...(byMessage.get(attempt.message_id) ?? []), attempt]);
  return messages.map((message) => ({ ...message, attempts: byMessage.get(message.id) ?? [] }));
}

/** Those of these recipient ids whose person still exists (not erased). */
export async function findExistingRecipientIds(db: Database, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await prismaOf(db).recipient.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true },
  });
  return new Set(rows.map((row) => row.id));
}
