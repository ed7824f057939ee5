// When SPEC 1.8's US texting rules apply to a message, and under which jurisdiction.
import { resolveJurisdiction, type TextingJurisdiction } from "../time/texting-hours";
import type { PolicyContext } from "./context";

export interface TextingCompliance {
  jurisdiction: TextingJurisdiction;
  /** The message's channels that send text messages. */
  textChannels: string[];
}

/**
 * Rules apply to a marketing message with a text channel among `channels`, for a US recipient
 * (region, else a +1 number on an enabled text address). Any text channel in the fallback list
 * counts, even behind another channel, because delivery may fall back to it at any hour.
 */
export function textingComplianceFor(
  ctx: PolicyContext,
  channels: readonly string[],
): TextingCompliance | null {
  const rules = ctx.config.compliance;
  if (!rules.usTextingRules || !ctx.category.marketing) return null;
  const textChannels = channels.filter((channel) => rules.smsChannels.includes(channel));
  if (textChannels.length === 0) return null;
  const phones = ctx.recipient.addresses
    .filter((address) => address.enabled && textChannels.includes(address.channel))
    .map((address) => address.value);
  const jurisdiction = resolveJurisdiction(ctx.recipient.region, phones, rules.unknownState);
  return jurisdiction ? { jurisdiction, textChannels } : null;
}
