// docs/policy.md, "US texting rules": in capped states a fourth marketing text within 24 hours
// (both sides of send_at) is not sent. Other channels are unaffected, so a message that can still
// go another way only loses its text channels; with none left it is suppressed.
import { textingComplianceFor } from "../compliance";
import { change, drop, pass, type PolicyStep } from "../context";
import { complianceCapReason } from "../reasons";
import { exceedsRollingLimit } from "../rolling-window";

const DAY_SECONDS = 86_400;

export const complianceCap: PolicyStep = {
  name: "compliance_cap",
  run(ctx, draft) {
    const texting = textingComplianceFor(ctx, draft.channels);
    const cap = texting?.jurisdiction.capPer24h ?? null;
    if (!texting || cap === null) return pass();
    const times = ctx.history.marketingTexts.map((t) => t.getTime());
    if (!exceedsRollingLimit(times, draft.sendAt.getTime(), cap, DAY_SECONDS)) return pass();
    const otherChannels = draft.channels.filter((channel) => !texting.textChannels.includes(channel));
    if (otherChannels.length > 0) return change({ channels: otherChannels });
    return drop("suppressed", complianceCapReason(cap, texting.jurisdiction.source));
  },
};
