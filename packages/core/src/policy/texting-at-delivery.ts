// Texting hours at delivery (docs/texting.md "At delivery"): composition moved `send_at` into
// legal hours, but a fallback, a retry or a late worker can reach a text channel at any hour. Right
// before a text channel is tried, the same hours are checked again; outside them the message waits
// for the next legal moment, or is dropped as `expired` when that comes at or after `expires_at`.
import { nextTextingTime, type TextingJurisdiction } from "../time/texting-hours";
import { resolveTimeZone } from "../time/zone";
import { textingRulesFor } from "./compliance";
import type { PolicyConfig, PolicyRecipient } from "./context";

export interface TextingAtDeliveryInput {
  now: Date;
  /** The channel about to be tried. */
  channel: string;
  /** The message's category is marked `marketing`. */
  marketing: boolean;
  expiresAt: Date | null;
  recipient: Pick<PolicyRecipient, "region" | "timezone" | "addresses">;
  compliance: PolicyConfig["compliance"];
  defaultTimezone: string;
}

export type TextingAtDelivery =
  | { kind: "send" }
  /** Outside legal hours: try this channel again at `until` (the next opening). */
  | { kind: "wait"; until: Date; jurisdiction: TextingJurisdiction }
  /** The next opening is at or after `expires_at`: the message cannot go out in time. */
  | { kind: "expired"; until: Date; jurisdiction: TextingJurisdiction };

export function textingAtDelivery(input: TextingAtDeliveryInput): TextingAtDelivery {
  const rules = textingRulesFor(input.compliance, input.marketing, [input.channel], input.recipient);
  if (!rules) return { kind: "send" };
  const zone = resolveTimeZone(input.recipient.timezone, input.defaultTimezone);
  const until = nextTextingTime(input.now, rules.jurisdiction, zone);
  if (until.getTime() === input.now.getTime()) return { kind: "send" };
  // The delivery re-check drops a message once `expires_at <= now`: waiting until then is pointless.
  if (input.expiresAt && until.getTime() >= input.expiresAt.getTime())
    return { kind: "expired", until, jurisdiction: rules.jurisdiction };
  return { kind: "wait", until, jurisdiction: rules.jurisdiction };
}
