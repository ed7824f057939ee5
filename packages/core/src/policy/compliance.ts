// When the US texting rules apply to a message, and under which jurisdiction
// (docs/texting.md "When the rules apply"). Composition asks about the planned channels,
// delivery about the one text channel it is about to use.
import { resolveJurisdiction, type TextingJurisdiction } from "../time/texting-hours";
import type { PolicyConfig, PolicyContext, PolicyRecipient } from "./context";

export interface TextingCompliance {
  jurisdiction: TextingJurisdiction;
  /** The message's channels that send text messages. */
  textChannels: string[];
}

/**
 * Rules apply to a marketing message with a text channel among `channels`, for a US recipient
 * (region, else a +1 number on an enabled text address).
 */
export function textingRulesFor(
  rules: PolicyConfig["compliance"],
  marketing: boolean,
  channels: readonly string[],
  recipient: Pick<PolicyRecipient, "region" | "addresses">,
): TextingCompliance | null {
  if (!rules.usTextingRules || !marketing) return null;
  const textChannels = channels.filter((channel) => rules.smsChannels.includes(channel));
  if (textChannels.length === 0) return null;
  const phones = recipient.addresses
    .filter((address) => address.enabled && textChannels.includes(address.channel))
    .map((address) => address.value);
  const jurisdiction = resolveJurisdiction(recipient.region, phones, rules.unknownState);
  return jurisdiction ? { jurisdiction, textChannels } : null;
}

/**
 * At composition: any text channel in the fallback list counts, even behind another channel,
 * because delivery may fall back to it.
 */
export function textingComplianceFor(
  ctx: PolicyContext,
  channels: readonly string[],
): TextingCompliance | null {
  return textingRulesFor(ctx.config.compliance, ctx.category.marketing, channels, ctx.recipient);
}
