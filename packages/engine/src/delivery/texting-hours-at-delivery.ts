import { textingAtDelivery, type TextingAtDelivery } from "@svc/core";
import type { MessageRow } from "@svc/store";
import type { Recheck } from "./recheck-before-sending";
import type { DeliveryDeps } from "../shared/delivery-types";

// The delivery loop's texting-hours step (docs/texting.md "At delivery"): before a text channel is
// tried, the pure decision of packages/core (policy/texting-at-delivery.ts) over what the re-check
// read just now.

export function textingHoursAt(
  deps: Pick<DeliveryDeps, "config">,
  message: Pick<MessageRow, "expires_at">,
  recheck: Extract<Recheck, { ok: true }>,
  channel: string,
  now: Date,
): TextingAtDelivery {
  const { compliance, policy } = deps.config;
  return textingAtDelivery({
    now,
    channel,
    marketing: recheck.marketing,
    expiresAt: message.expires_at,
    recipient: recheck.recipient,
    compliance: {
      usTextingRules: compliance.us_texting_rules,
      smsChannels: compliance.sms_channels,
      unknownState: compliance.unknown_state,
    },
    defaultTimezone: policy.default_timezone,
  });
}
