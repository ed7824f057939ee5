import { REASON } from "@svc/core";
import type { MessageRow, RecheckFacts } from "@svc/store";

// What holds at send time (docs/delivery.md "Re-checks"): preferences (unsubscribe, muted
// channels), consent expiry, expiry and the agent's state are read again right before sending, in
// the order of the reason codes (docs/policy.md). The facts of many messages are read in one query
// (loadRecheckFacts, the worker runs many jobs at once); the decision is pure.

export type Recheck =
  | {
      ok: true;
      channels: string[];
      allowUnsubscribe: boolean;
      /** The category is marked `marketing` (a deleted category counts as one: the law wins). */
      marketing: boolean;
      recipient: RecheckedRecipient;
    }
  | { ok: false; reason: string };

export interface RecheckedRecipient {
  external_id: string;
  locale: string | null;
  timezone: string | null;
  region: string | null;
  addresses: { channel: string; value: string; enabled: boolean }[];
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
    marketing: facts.marketing ?? true,
    recipient: {
      external_id: recipient.external_id,
      locale: recipient.locale,
      timezone: recipient.timezone,
      region: recipient.region,
      addresses: recipient.addresses,
    },
  };
}
