// docs/agents.md, "Budgets": the agent's per-person caps over its messages in any category, held
// ones included, measured on send_at on both sides. Applies to critical messages too.
import { drop, pass, type PolicyStep } from "../context";
import { agentBudgetReason } from "../reasons";
import { exceedsRollingLimit } from "../rolling-window";

export const agentBudget: PolicyStep = {
  name: "agent_budget",
  run(ctx, draft) {
    const agent = ctx.message.agent;
    if (!agent) return pass();
    const times = ctx.history.agent.map((t) => t.getTime());
    const at = draft.sendAt.getTime();
    const hit = agent.frequencyCaps.find((cap) =>
      exceedsRollingLimit(times, at, cap.limit, cap.periodSeconds),
    );
    return hit ? drop("suppressed", agentBudgetReason(hit.limit, hit.periodSeconds)) : pass();
  },
};
