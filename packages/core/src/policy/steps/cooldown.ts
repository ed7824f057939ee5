// docs/policy.md, "Cooldown": the rule already messaged this person within cooldown_seconds, on
// either side of the new send_at. That is a rolling limit of one message per cooldown period.
import { drop, pass, type PolicyStep } from "../context";
import { REASON } from "../reasons";
import { exceedsRollingLimit } from "../rolling-window";

export const cooldown: PolicyStep = {
  name: "cooldown",
  run(ctx, draft) {
    const seconds = ctx.message.rule?.cooldownSeconds ?? 0;
    if (seconds <= 0) return pass();
    const times = ctx.history.rule.map((t) => t.getTime());
    return exceedsRollingLimit(times, draft.sendAt.getTime(), 1, seconds)
      ? drop("suppressed", REASON.cooldown)
      : pass();
  },
};
