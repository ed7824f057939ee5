import { newId } from "@svc/core";
import { Prisma } from "../../generated/prisma/client";
import type { MessageRow } from "../../rows";
import type { NewOutboxEntry } from "../outbox";
import { prismaOf, rootOf, type Database, type RootDatabase } from "../../transaction";

// The writes of a delivery run (docs/delivery.md). Final writes are compare-and-set on
// (id, generation, `sending`), so a worker whose lease was taken over cannot overwrite the newer
// run's outcome. Attempts are facts: written even when the run lost its lease.

/** One provider try on one address (or the channel as a whole). */
export interface AttemptWrite {
  channel: string;
  provider: string;
  address: string | null;
  ok: boolean;
  retryable: boolean;
  error: string | null;
}

/** Stores attempts of a run that did not end in `sent`; the run's attempt counter grows with them. */
export async function recordDeliveryAttempts(
  prisma: RootDatabase,
  messageId: string,
  at: Date,
  attempts: readonly AttemptWrite[],
): Promise<void> {
  if (attempts.length === 0) return;
  await rootOf(prisma).$transaction([
    rootOf(prisma).deliveryAttempt.createMany({
      data: attempts.map((a) => ({
        id: newId("attempt", at.getTime()),
        message_id: messageId,
        channel: a.channel,
        provider: a.provider,
        address: a.address,
        ok: a.ok,
        retryable: a.retryable,
        error: a.error,
        at,
      })),
    }),
    rootOf(prisma).message.update({
      where: { id: messageId },
      data: { delivery_attempts: { increment: attempts.length } },
    }),
  ]);
}

export type RunAttempt = { channel: string; ok: boolean; retryable: boolean; error: string | null; at: Date };

/** The attempts of the current run: the newest `delivery_attempts` rows, newest first. */
export async function currentRunAttempts(
  db: Database,
  message: Pick<MessageRow, "id" | "delivery_attempts">,
): Promise<RunAttempt[]> {
  if (message.delivery_attempts === 0) return [];
  return prismaOf(db).deliveryAttempt.findMany({
    where: { message_id: message.id },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: message.delivery_attempts,
    select: { channel: true, ok: true, retryable: true, error: true, at: true },
  });
}

/**
 * `sending` (this generation) → `failed` or `suppressed` with a reason; false when the run lost its
 * lease. `outbox` entries (docs/outbox.md) are written in the same statement, only if it won.
 */
export async function finishSendingMessage(
  db: Database,
  message: Pick<MessageRow, "id" | "generation">,
  status: "failed" | "suppressed",
  reason: string,
  now: Date,
  outbox: readonly NewOutboxEntry[] = [],
): Promise<boolean> {
  const rows = await prismaOf(db).$queryRaw<{ count: number }[]>(Prisma.sql`
    WITH won AS (
      UPDATE messages SET status = ${status}::"MessageStatus", status_reason = ${reason}, lease_until = NULL, updated_at = ${now}
      WHERE id = ${message.id} AND generation = ${message.generation} AND status = 'sending'
      RETURNING id
    ),
    entries AS (
      INSERT INTO outbox (topic, payload, notify)
      SELECT e.topic, e.payload::jsonb, e.notify
        FROM unnest(${outbox.map((e) => e.topic)}::text[], ${outbox.map((e) => JSON.stringify(e.payload))}::text[],
                    ${outbox.map((e) => e.notify ?? null)}::text[]) WITH ORDINALITY AS e(topic, payload, notify, n)
       WHERE EXISTS (SELECT 1 FROM won) ORDER BY e.n
    )
    SELECT count(*)::int AS count FROM won`);
  return rows[0]?.count === 1;
}

export interface SentWrite {
  message: Pick<MessageRow, "id" | "generation">;
  channel: string;
  /** When the channel try started: the attempts' `at`. */
  at: Date;
  attempts: readonly AttemptWrite[];
  sentAt: Date;
  /**
   * Outbox entries (one topic) written in the same statement if the write wins: `sent`'s payload,
   * and `delivered`'s too when a delivered report overtook it.
   */
  outbox?: { topic: string; sent: NewOutboxEntry["payload"]; delivered: NewOutboxEntry["payload"] };
}

/**
 * Attempts plus `sent` with channel and time, compare-and-set on (id, generation, `sending`), for
 * many messages in one statement. A `delivered` report that overtook this write (reported while
 * still `sending`) makes it `delivered`. When the message is its category's fatigue probe, the
 * probe is dated by when it really went out (composition dated it by `send_at`), so the next
 * message judges it only after it had its chance (docs/policy.md "Fatigue"). A winner's outbox
 * entries go in with it (docs/outbox.md). Returns per write whether it won.
 */
export async function writeSentMessages(db: Database, writes: readonly SentWrite[]): Promise<SentResult[]> {
  if (writes.length === 0) return [];
  const attempts = writes.flatMap((w) =>
    w.attempts.map((a) => ({
      id: newId("attempt", w.at.getTime()),
      messageId: w.message.id,
      at: w.at,
      ...a,
    })),
  );
  const won = await prismaOf(db).$queryRaw<
    { id: string; generation: number; event_created_at: Date | null }[]
  >(Prisma.sql`
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
                           ${writes.map((w) => w.channel)}::text[], ${writes.map((w) => w.sentAt)}::timestamptz[], ${writes.map((w) => w.attempts.length)}::int[],
                           ${writes.map((w) => w.outbox?.topic ?? null)}::text[], ${writes.map((w) => (w.outbox ? JSON.stringify(w.outbox.sent) : null))}::text[],
                           ${writes.map((w) => (w.outbox ? JSON.stringify(w.outbox.delivered) : null))}::text[])
        AS v(id, generation, channel, sent_at, n, outbox_topic, sent_payload, delivered_payload)
    ),
    won AS (
      UPDATE messages m SET
        status = CASE WHEN d.message_id IS NULL THEN 'sent'::"MessageStatus" ELSE 'delivered'::"MessageStatus" END,
        delivered_at = CASE WHEN d.message_id IS NULL THEN m.delivered_at ELSE v.sent_at END,
        status_reason = NULL, channel = v.channel, sent_at = v.sent_at, lease_until = NULL,
        delivery_attempts = m.delivery_attempts + v.n, updated_at = v.sent_at
      FROM v LEFT JOIN engagements d ON d.message_id = v.id AND d.type = 'delivered'
      WHERE m.id = v.id AND m.generation = v.generation AND m.status = 'sending'
      RETURNING m.id, m.generation, m.status, m.recipient_id, m.category, m.sent_at, m.event_id
    ),
    entries AS (
      INSERT INTO outbox (topic, payload, notify)
      SELECT v.outbox_topic, p.payload::jsonb, NULL
        FROM won JOIN v ON v.id = won.id AND v.generation = won.generation
        CROSS JOIN LATERAL (VALUES (1, v.sent_payload),
                                   (2, CASE WHEN won.status = 'delivered' THEN v.delivered_payload END)) AS p(k, payload)
       WHERE v.outbox_topic IS NOT NULL AND p.payload IS NOT NULL
       ORDER BY won.id, p.k
    ),
    lost AS (
      UPDATE messages m SET delivery_attempts = m.delivery_attempts + v.n
      FROM v WHERE m.id = v.id AND NOT (m.generation = v.generation AND m.status = 'sending')
    ),
    probes AS (
      UPDATE fatigue_states f SET probe_sent_at = won.sent_at, updated_at = won.sent_at
      FROM won WHERE f.recipient_id = won.recipient_id AND f.category = won.category AND f.probe_message_id = won.id
    )
    SELECT won.id, won.generation, e.created_at AS event_created_at FROM won LEFT JOIN events e ON e.id = won.event_id`);
  const winners = new Map(won.map((row) => [`${row.id}-${row.generation}`, row.event_created_at]));
  return writes.map((w) => {
    const key = `${w.message.id}-${w.message.generation}`;
    return { won: winners.has(key), eventCreatedAt: winners.get(key) ?? null };
  });
}

/** Per write of `writeSentMessages`: whether it won, and when its event was accepted (metrics). */
export interface SentResult {
  won: boolean;
  eventCreatedAt: Date | null;
}

/** What the send-time re-checks read about one message, as of right now (docs/delivery.md "Re-checks"). */
export interface RecheckFacts {
  /** Null: the person was erased. */
  recipient: {
    external_id: string;
    locale: string | null;
    timezone: string | null;
    region: string | null;
    unsubscribed_categories: string[];
    muted_channels: string[];
    addresses: { channel: string; value: string; enabled: boolean }[];
  } | null;
  /** Null: the category was deleted. */
  allowUnsubscribe: boolean | null;
  /** The category's `marketing` flag (texting hours at delivery); null: the category was deleted. */
  marketing: boolean | null;
  consentExpiresAt: Date | null;
  /** Only for agent messages; null: the agent row is gone. */
  agent?: { deleted_at: Date | null; enabled: boolean; categories: string[] | null } | null;
}

/** The columns of the re-check facts, prefixed so they sit beside a message's own (see recheckFactsSql). */
export interface RecheckFactsColumns {
  rc_found: boolean;
  rc_external_id: string | null;
  rc_locale: string | null;
  rc_timezone: string | null;
  rc_region: string | null;
  rc_unsubscribed_categories: string[] | null;
  rc_muted_channels: string[] | null;
  rc_addresses: { channel: string; value: string; enabled: boolean }[];
  rc_allow_unsubscribe: boolean | null;
  rc_marketing: boolean | null;
  rc_consent_expires_at: Date | null;
  rc_agent_found: boolean;
  rc_agent_deleted_at: Date | null;
  rc_agent_enabled: boolean | null;
  rc_agent_categories: string[] | null;
}

/**
 * The select list and joins that read the re-check facts of `q` (a relation with `recipient_id`,
 * `category` and `agent_key`: the messages being claimed, or the list loadRecheckFacts is given).
 * One copy for both statements, so a claim and a re-check read the same facts.
 */
export const recheckFactsSql = {
  columns: Prisma.sql`r.id IS NOT NULL AS rc_found, r.external_id AS rc_external_id, r.locale AS rc_locale,
      r.timezone AS rc_timezone, r.region AS rc_region, r.unsubscribed_categories AS rc_unsubscribed_categories,
      r.muted_channels AS rc_muted_channels,
      COALESCE((SELECT json_agg(json_build_object('channel', a.channel, 'value', a.value, 'enabled', a.enabled) ORDER BY a.created_at)
                  FROM addresses a WHERE a.recipient_id = q.recipient_id), '[]'::json) AS rc_addresses,
      c.allow_unsubscribe AS rc_allow_unsubscribe, c.marketing AS rc_marketing, cs.expires_at AS rc_consent_expires_at,
      ag.key IS NOT NULL AS rc_agent_found, ag.deleted_at AS rc_agent_deleted_at, ag.enabled AS rc_agent_enabled,
      ag.categories AS rc_agent_categories`,
  joins: Prisma.sql`LEFT JOIN recipients r ON r.id = q.recipient_id
    LEFT JOIN categories c ON c.key = q.category
    LEFT JOIN consents cs ON cs.recipient_id = q.recipient_id AND cs.category = q.category
    LEFT JOIN agents ag ON ag.key = q.agent_key`,
};

/** A row's facts columns as RecheckFacts (`agent` only for an agent's message). */
export function recheckFactsOf(
  row: RecheckFactsColumns,
  message: Pick<MessageRow, "agent_key">,
): RecheckFacts {
  const facts: RecheckFacts = {
    recipient: row.rc_found
      ? {
          external_id: row.rc_external_id!,
          locale: row.rc_locale,
          timezone: row.rc_timezone,
          region: row.rc_region,
          unsubscribed_categories: row.rc_unsubscribed_categories ?? [],
          muted_channels: row.rc_muted_channels ?? [],
          addresses: row.rc_addresses,
        }
      : null,
    allowUnsubscribe: row.rc_allow_unsubscribe,
    marketing: row.rc_marketing,
    consentExpiresAt: row.rc_consent_expires_at,
  };
  if (message.agent_key) {
    facts.agent = row.rc_agent_found
      ? {
          deleted_at: row.rc_agent_deleted_at,
          enabled: row.rc_agent_enabled ?? false,
          categories: row.rc_agent_categories,
        }
      : null;
  }
  return facts;
}

/** The re-check facts of many messages in one round trip, in input order. */
export async function loadRecheckFacts(
  db: Database,
  messages: readonly Pick<MessageRow, "id" | "recipient_id" | "category" | "agent_key">[],
): Promise<RecheckFacts[]> {
  if (messages.length === 0) return [];
  const rows = await prismaOf(db).$queryRaw<(RecheckFactsColumns & { id: string })[]>(Prisma.sql`
    SELECT q.id, ${recheckFactsSql.columns}
    FROM unnest(${messages.map((m) => m.id)}::text[], ${messages.map((m) => m.recipient_id)}::text[],
                ${messages.map((m) => m.category)}::text[], ${messages.map((m) => m.agent_key)}::text[]) AS q(id, recipient_id, category, agent_key)
    ${recheckFactsSql.joins}`);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return messages.map((message) => recheckFactsOf(byId.get(message.id)!, message));
}
