// Agents: a claimed importance above max_importance is lowered (docs/policy.md, "Importance"),
// before any step judges critical exemptions. The decision keeps claimed_importance.
import { change, pass, type PolicyStep } from "../context";
import { lowerImportance } from "../importance";

export const importanceCeiling: PolicyStep = {
  name: "importance_ceiling",
  run(ctx, draft) {
    const agent = ctx.message.agent;
    if (!agent) return pass();
    const lowered = lowerImportance(draft.importance, agent.maxImportance);
    return lowered === draft.importance ? pass() : change({ importance: lowered });
  },
};
