// docs/agents.md, "Approval": an agent's message matching its approval condition waits for a reviewer.
// A message a reviewer already approved is re-checked without asking again.
import { hold, pass, type PolicyStep } from "../context";

export const approval: PolicyStep = {
  name: "approval",
  async run(ctx, draft) {
    if (!ctx.message.agent || ctx.message.approved || !ctx.requiresApproval) return pass();
    const held = await ctx.requiresApproval({
      category: ctx.category.key,
      importance: draft.importance,
      channels: draft.channels,
    });
    return held ? hold() : pass();
  },
};
