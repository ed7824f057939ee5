import { newId } from "@svc/core";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";
import type { MessageRow } from "../../rows";
import type { PrismaClientOrTransaction } from "../../transaction";

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
  prisma: PrismaClient,
  messageId: string,
  at: Date,
  attempts: readonly AttemptWrite[],
): Promise<void> {
  if (attempts.length === 0) return;
  await prisma.$transaction([
    prisma.deliveryAttempt.createMany({
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
    prisma.message.update({
      where: { id: messageId },
      data: { delivery_attempts: { increment: attempts.length } },
    }),
  ]);
}

export type RunAttempt = { channel: string; ok: boolean; retryable: boolean; error: string | null; at: Date };

/** The attempts of the current run: the newest `delivery_attempts` rows, newest first. */
export async function currentRunAttempts(
  db: PrismaClientOrTransaction,
  message: Pick<MessageRow, "id" | "delivery_attempts">,
): Promise<RunAttempt[]> {
  if (message.delivery_attempts === 0) return [];
  return db.deliveryAttempt.findMany({
    where: { message_id: message.id },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: message.delivery_attempts,
    select: { channel: true, ok: true, retryable: true, error: true, at: true },
  });
}

/** `sending` (this generation) → `failed` or `suppressed` with a reason; false when the run lost its lease. */
export async function finishSendingMessage(
  db: PrismaClientOrTransaction,
  message: Pick<MessageRow, "id" | "generation">,
  status: "failed" | "suppressed",
  reason: string,
  now: Date,
): Promise<boolean> {
  const { count } = await db.message.updateMany({
    where: { id: message.id, generation: message.generation, status: "sending" },
    data: { status, status_reason: reason, lease_until: null, updated_at: now },
  });
  return count === 1;
}

export interface SentWrite {
  message: Pick<MessageRow, "id" | "generation">;
  channel: string;
  /** When the channel try started: the attempts' `at`. */
  at: Date;
  attempts: readonly AttemptWrite[];
  sentAt: Date;
}

/**
 * Attempts plus `sent` with channel and time, compare-and-set on (id, generation, `sending`), for
 * many messages in one statement. A `delivered` report that overtook this write (reported while
 * still `sending`) makes it `delivered`. When the message is its category's fatigue probe, the
 * probe is dated by when it really went out (composition dated it by `send_at`), so the next
 * message judges it only after it had its chance (docs/policy.md "Fatigue"). Returns per write
 * whether it won.
 */
export async function writeSentMessages(
  db: PrismaClientOrTransaction,
  writes: readonly SentWrite[],
): Promise<SentResult[]> {
  if (writes.length === 0) return [];
  const attempts = writes.flatMap((w) =>
    w.attempts.map((a) => ({
      id: newId("attempt", w.at.getTime()),
      messageId: w.message.id,
      at: w.at,
      ...a,
    })),
  );
  const won = await db.$queryRaw<
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
      RETURNING m.id, m.generation, m.recipient_id, m.category, m.sent_at, m.event_id
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

interface FactsRow {
  id: string;
  found: boolean;
  external_id: string | null;
  locale: string | null;
  timezone: string | null;
  region: string | null;
  unsubscribed_categories: string[] | null;
  muted_channels: string[] | null;
  addresses: { channel: string; value: string; enabled: boolean }[];
  allow_unsubscribe: boolean | null;
  marketing: boolean | null;
  consent_expires_at: Date | null;
  agent_found: boolean;
  agent_deleted_at: Date | null;
  agent_enabled: boolean | null;
  agent_categories: string[] | null;
}

/** The re-check facts of many messages in one round trip, in input order. */
export async function loadRecheckFacts(
  db: PrismaClientOrTransaction,
  messages: readonly Pick<MessageRow, "id" | "recipient_id" | "category" | "agent_key">[],
): Promise<RecheckFacts[]> {
  if (messages.length === 0) return [];
  const rows = await db.$queryRaw<FactsRow[]>(Prisma.sql`
    SELECT q.id, r.id IS NOT NULL AS found, r.external_id, r.locale, r.timezone, r.region, r.unsubscribed_categories, r.muted_channels,
      COALESCE((SELECT json_agg(json_build_object('channel', a.channel, 'value', a.value, 'enabled', a.enabled) ORDER BY a.created_at)
                  FROM addresses a WHERE a.recipient_id = q.recipient_id), '[]'::json) AS addresses,
      c.allow_unsubscribe, c.marketing, cs.expires_at AS consent_expires_at,
      ag.key IS NOT NULL AS agent_found, ag.deleted_at AS agent_deleted_at, ag.enabled AS agent_enabled, ag.categories AS agent_categories
    FROM unnest(${messages.map((m) => m.id)}::text[], ${messages.map((m) => m.recipient_id)}::text[],
                ${messages.map((m) => m.category)}::text[], ${messages.map((m) => m.agent_key)}::text[]) AS q(id, recipient_id, category, agent_key)
    LEFT JOIN recipients r ON r.id = q.recipient_id
    LEFT JOIN categories c ON c.key = q.category
    LEFT JOIN consents cs ON cs.recipient_id = q.recipient_id AND cs.category = q.category
    LEFT JOIN agents ag ON ag.key = q.agent_key`);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return messages.map((message) => {
    const row = byId.get(message.id)!;
    const facts: RecheckFacts = {
      recipient: row.found
        ? {
            external_id: row.external_id!,
            locale: row.locale,
            timezone: row.timezone,
            region: row.region,
            unsubscribed_categories: row.unsubscribed_categories ?? [],
            muted_channels: row.muted_channels ?? [],
            addresses: row.addresses,
          }
        : null,
      allowUnsubscribe: row.allow_unsubscribe,
      marketing: row.marketing,
      consentExpiresAt: row.consent_expires_at,
    };
    if (message.agent_key) {
      facts.agent = row.agent_found
        ? {
            deleted_at: row.agent_deleted_at,
            enabled: row.agent_enabled ?? false,
            categories: row.agent_categories,
          }
        : null;
    }
    return facts;
  });
}
