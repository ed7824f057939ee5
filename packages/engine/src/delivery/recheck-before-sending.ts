import { REASON } from "@svc/core";
import type { MessageRow, PrismaClient } from "@svc/store";

// SPEC 1.1 "Rules that hold at send time": preferences (unsubscribe, muted channels), consent
// expiry, expiry and the agent's state are read again right before sending, in SPEC 7.1's order.

export type Recheck =
  | { ok: true; channels: string[]; allowUnsubscribe: boolean; recipient: RecheckedRecipient }
  | { ok: false; reason: string };

export interface RecheckedRecipient {
  external_id: string;
  locale: string | null;
  timezone: string | null;
  addresses: { channel: string; value: string; enabled: boolean }[];
}

export async function recheckBeforeSending(prisma: PrismaClient, message: MessageRow, now: Date): Promise<Recheck> {
  const [recipient, category] = await Promise.all([
    prisma.recipient.findUnique({
      where: { id: message.recipient_id },
      include: { addresses: { orderBy: { created_at: "asc" } }, consents: { where: { category: message.category } } },
    }),
    prisma.category.findUnique({ where: { key: message.category } }),
  ]);
  // Erased person: nobody left to reach.
  if (!recipient) return { ok: false, reason: REASON.noReachableChannel };
  // A deleted category cannot forbid unsubscribing any more; treat it like one that allows it.
  const allowUnsubscribe = category?.allow_unsubscribe ?? true;
  if (allowUnsubscribe && recipient.unsubscribed_categories.includes(message.category)) {
    return { ok: false, reason: REASON.unsubscribed };
  }
  const consentExpiry = recipient.consents[0]?.expires_at ?? null;
  if (consentExpiry && consentExpiry.getTime() <= now.getTime()) return { ok: false, reason: REASON.consentExpired };
  if (message.expires_at && message.expires_at.getTime() <= now.getTime()) return { ok: false, reason: REASON.expired };
  const agentReason = message.agent_key ? await agentRecheck(prisma, message.agent_key, message.category) : null;
  if (agentReason) return { ok: false, reason: agentReason };

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

async function agentRecheck(prisma: PrismaClient, agentKey: string, category: string): Promise<string | null> {
  const agent = await prisma.agent.findUnique({ where: { key: agentKey } });
  if (!agent || agent.deleted_at) return REASON.agentDeleted;
  if (!agent.enabled) return REASON.agentNotAllowed;
  const categories = agent.categories as string[] | null;
  if (categories !== null && !categories.includes(category)) return REASON.agentNotAllowed;
  return null;
}
