import { newId } from "@svc/core";
import { Prisma, type MessageRow, type PrismaClient } from "@svc/store";
import type { AttemptRecord } from "./send-to-channel";

// The two writes every message makes on the common path, for many messages per round trip:
// the claim of a due `queued` row, and "attempts + sent" once a channel accepted. Both are
// compare-and-set per row exactly like their one-row forms in claim-message.ts and
// delivery-writes.ts, so batching changes the number of round trips, not who wins.

export interface ClaimRequest {
  messageId: string;
  generation: number;
}

/**
 * Claims the requested rows that are `queued`, due and of the job's generation: `sending`, leased
 * until `now + leaseSeconds`, a new run (attempt counter 0). Returns the claimed row per request,
 * or null (not due, another generation, another status: the one-row claim decides what it means).
 */
export async function claimDueBatch(
  prisma: PrismaClient,
  requests: readonly ClaimRequest[],
  now: Date,
  leaseSeconds: number,
): Promise<(MessageRow | null)[]> {
  if (requests.length === 0) return [];
  const leaseUntil = new Date(now.getTime() + leaseSeconds * 1000);
  const rows = await prisma.$queryRaw<MessageRow[]>(Prisma.sql`
    UPDATE messages m SET status = 'sending', lease_until = ${leaseUntil}, delivery_attempts = 0, updated_at = ${now}
    FROM unnest(${requests.map((r) => r.messageId)}::text[], ${requests.map((r) => r.generation)}::int[]) AS j(id, generation)
    WHERE m.id = j.id AND m.generation = j.generation AND m.status = 'queued' AND m.send_at <= ${now}
    RETURNING m.*`);
  const claimed = new Map(rows.map((row) => [`${row.id}-${row.generation}`, row]));
  // A job id twice in one batch gets the row once: one sender per claim.
  return requests.map((r) => {
    const key = `${r.messageId}-${r.generation}`;
    const row = claimed.get(key) ?? null;
    claimed.delete(key);
    return row;
  });
}

export interface SentWrite {
  message: Pick<MessageRow, "id" | "generation">;
  channel: string;
  /** When the channel try started: the attempts' `at`. */
  at: Date;
  attempts: AttemptRecord[];
  sentAt: Date;
}

/**
 * Attempts (facts, written even when the run lost its lease) plus `sent` with channel and time,
 * compare-and-set on (id, generation, `sending`). A `delivered` report that overtook this write
 * (reported while still `sending`) makes it `delivered`. When the message is its category's
 * fatigue probe, the probe is dated by when it really went out (composition dated it by
 * `send_at`), so the next message judges it only after it had its chance (DECISIONS "Policy").
 * One statement for the whole batch; returns per write whether it won.
 */
export async function writeSentBatch(prisma: PrismaClient, writes: readonly SentWrite[]): Promise<boolean[]> {
  if (writes.length === 0) return [];
  const attempts = writes.flatMap((w) =>
    w.attempts.map((a) => ({
      id: newId("attempt", w.at.getTime()),
      messageId: w.message.id,
      at: w.at,
      ...a,
    })),
  );
  const won = await prisma.$queryRaw<{ id: string; generation: number }[]>(Prisma.sql`
    WITH attempts AS (
      INSERT INTO delivery_attempts (id, message_id, channel, provider, address, ok, retryable, error, at)
      SELECT a.* FROM unnest(${attempts.map((a) => a.id)}::text[], ${attempts.map((a) => a.messageId)}::text[], ${attempts.map((a) => a.channel)}::text[],
                             ${attempts.map((a) => a.provider)}::text[], ${attempts.map((a) => a.address)}::text[], ${attempts.map((a) => a.ok)}::boolean[],
                             ${attempts.map((a) => a.retryable)}::boolean[], ${attempts.map((a) => a.error)}::text[], ${attempts.map((a) => a.at)}::timestamptz[])
        AS a(id, message_id, channel, provider, address, ok, retryable, error, at)
      WHERE EXISTS (SELECT 1 FROM messages m WHERE m.id = a.message_id)
    ),
    v AS (
      SELECT * FROM unnest(${writes.map((w) => w.message.id)}::text[], ${writes.map((w) => w.message.generation)}::int[],
                           ${writes.map((w) => w.channel)}::text[], ${writes.map((w) => w.sentAt)}::timestamptz[], ${writes.map((w) => w.attempts.length)}::int[])
        AS v(id, generation, channel, sent_at, n)
    ),
    won AS (
      UPDATE messages m SET
        status = CASE WHEN d.message_id IS NULL THEN 'sent'::"MessageStatus" ELSE 'delivered'::"MessageStatus" END,
        delivered_at = CASE WHEN d.message_id IS NULL THEN m.delivered_at ELSE v.sent_at END,
        status_reason = NULL, channel = v.channel, sent_at = v.sent_at, lease_until = NULL,
        delivery_attempts = m.delivery_attempts + v.n, updated_at = v.sent_at
      FROM v LEFT JOIN engagements d ON d.message_id = v.id AND d.type = 'delivered'
      WHERE m.id = v.id AND m.generation = v.generation AND m.status = 'sending'
      RETURNING m.id, m.generation, m.recipient_id, m.category, m.sent_at
    ),
    lost AS (
      UPDATE messages m SET delivery_attempts = m.delivery_attempts + v.n
      FROM v WHERE m.id = v.id AND NOT (m.generation = v.generation AND m.status = 'sending')
    ),
    probes AS (
      UPDATE fatigue_states f SET probe_sent_at = won.sent_at, updated_at = won.sent_at
      FROM won WHERE f.recipient_id = won.recipient_id AND f.category = won.category AND f.probe_message_id = won.id
    )
    SELECT id, generation FROM won`);
  const winners = new Set(won.map((row) => `${row.id}-${row.generation}`));
  return writes.map((w) => winners.has(`${w.message.id}-${w.message.generation}`));
}
