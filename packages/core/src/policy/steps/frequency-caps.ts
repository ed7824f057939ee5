// docs/policy.md, "Frequency caps": the category's rolling caps, measured on send_at on both sides.
// `critical` messages are exempt. The first cap used up (in the category's order) is reported.
import { drop, pass, type PolicyStep } from "../context";
import { frequencyCapReason } from "../reasons";
import { exceedsRollingLimit } from "../rolling-window";

export const frequencyCaps: PolicyStep = {
  name: "frequency_caps",
  run(ctx, draft) {
    if (draft.importance === "critical") return pass();
    const times = ctx.history.category.map((t) => t.getTime());
    const at = draft.sendAt.getTime();
    const hit = ctx.category.frequencyCaps.find((cap) =>
      exceedsRollingLimit(times, at, cap.limit, cap.periodSeconds),
    );
    return hit ? drop("suppressed", frequencyCapReason(hit.limit, hit.periodSeconds)) : pass();
  },
};
