// Render in the recipient's locale (docs/templates.md, "Which locale"); a failure fails the message
// (not suppresses).
import { change, drop, type PolicyStep } from "../context";
import { templateErrorReason } from "../reasons";

export const rendering: PolicyStep = {
  name: "rendering",
  async run(ctx, draft) {
    const result = await ctx.render({
      locale: ctx.recipient.locale,
      channels: draft.channels,
      importance: draft.importance,
      sendAt: draft.sendAt,
    });
    return result.ok
      ? change({ content: result.content })
      : drop("failed", templateErrorReason(result.error));
  },
};
