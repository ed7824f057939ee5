import { REASON } from "@svc/core";
import { Prisma, type MessageRow, type PrismaClient } from "@svc/store";

// SPEC 1.1 "Rules that hold at send time": preferences (unsubscribe, muted channels), consent
// expiry, expiry and the agent's state are read again right before sending, in SPEC 7.1's order.
// The facts of many messages are read in one query (the worker runs many jobs at once); the
// decision is pure.

export type Recheck =
  | { ok: true; channels: string[]; allowUnsubscribe: boolean; recipient: RecheckedRecipient }
  | { ok: false; reason: string };

export interface RecheckedRecipient {
  external_id: string;
  locale: string | null;
  timezone: string | null;
  addresses: { channel: string; value: string; enabled: boolean }[];
}

/** What the re-checks read about one message, as of right now. */
export interface RecheckFacts {
  /** Null: the person was erased. */
  recipient: (RecheckedRecipient & { unsubscribed_categories: string[]; muted_channels: string[] }) | null;
  /** Null: the category was deleted. */
  allowUnsubscribe: boolean | null;
  consentExpiresAt: Date | null;
  /** Only for agent messages; null: the agent row is gone. */
  agent?: { deleted_at: Date | null; enabled: boolean; categories: string[] | null } | null;
}

export function recheckFromFacts(message: MessageRow, facts: RecheckFacts, now: Date): Recheck {
  const { recipient } = facts;
  // Erased person: nobody left to reach.
  if (!recipient) return { ok: false, reason: REASON.noReachableChannel };
  // A deleted category cannot forbid unsubscribing any more; treat it like one that allows it.
  const allowUnsubscribe = facts.allowUnsubscribe ?? true;
  if (allowUnsubscribe && recipient.unsubscribed_categories.includes(message.category)) {
    return { ok: false, reason: REASON.unsubscribed };
  }
  if (facts.consentExpiresAt && facts.consentExpiresAt.getTime() <= now.getTime())
    return { ok: false, reason: REASON.consentExpired };
  if (message.expires_at && message.expires_at.getTime() <= now.getTime())
    return { ok: false, reason: REASON.expired };
  if (message.agent_key) {
    const agent = facts.agent;
    if (!agent || agent.deleted_at) return { ok: false, reason: REASON.agentDeleted };
    if (!agent.enabled) return { ok: false, reason: REASON.agentNotAllowed };
    if (agent.categories !== null && !agent.categories.includes(message.category))
      return { ok: false, reason: REASON.agentNotAllowed };
  }
  return {
    ok: true,
    channels: message.channels.filter((channel) => !recipient.muted_channels.includes(channel)),
    allowUnsubscribe,
    recipient: {
      external_id: recipient.external_id,
      locale: recipient.locale,
      timezone: recipient.timezone,
      addresses: recipient.addresses,
    },
  };
}

interface FactsRow {
  id: string;
  found: boolean;
  external_id: string | null;
  locale: string | null;
  timezone: string | null;
  unsubscribed_categories: string[] | null;
  muted_channels: string[] | null;
  addresses: { channel: string; value: string; enabled: boolean }[];
  allow_unsubscribe: boolean | null;
  consent_expires_at: Date | null;
  agent_found: boolean;
  agent_deleted_at: Date | null;
  agent_enabled: boolean | null;
  agent_categories: string[] | null;
}

/** The re-check facts of many messages in one round trip, in input order. */
export async function loadRecheckFacts(
  prisma: PrismaClient,
  messages: readonly MessageRow[],
): Promise<RecheckFacts[]> {
  if (messages.length === 0) return [];
  const rows = await prisma.$queryRaw<FactsRow[]>(Prisma.sql`
    SELECT q.id, r.id IS NOT NULL AS found, r.external_id, r.locale, r.timezone, r.unsubscribed_categories, r.muted_channels,
      COALESCE((SELECT json_agg(json_build_object('channel', a.channel, 'value', a.value, 'enabled', a.enabled) ORDER BY a.created_at)
                  FROM addresses a WHERE a.recipient_id = q.recipient_id), '[]'::json) AS addresses,
      c.allow_unsubscribe, cs.expires_at AS consent_expires_at,
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
            unsubscribed_categories: row.unsubscribed_categories ?? [],
            muted_channels: row.muted_channels ?? [],
            addresses: row.addresses,
          }
        : null,
      allowUnsubscribe: row.allow_unsubscribe,
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

/** One message's re-check (its own round trip); the worker batches through `loadRecheckFacts`. */
export async function recheckBeforeSending(
  prisma: PrismaClient,
  message: MessageRow,
  now: Date,
): Promise<Recheck> {
  const [facts] = await loadRecheckFacts(prisma, [message]);
  return recheckFromFacts(message, facts!, now);
}
