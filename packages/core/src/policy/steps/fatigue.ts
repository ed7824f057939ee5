// docs/policy.md, "Fatigue"; see ../fatigue.ts for the state machine. A pause that starts is stored
// even though the message is suppressed; the counter and probe are stored only if the message ends
// queued.
import { change, drop, pass, type PolicyStep } from "../context";
import { evaluateFatigue } from "../fatigue";
import { REASON } from "../reasons";

export const fatigue: PolicyStep = {
  name: "fatigue",
  run(ctx, draft) {
    const settings = ctx.category.fatigue;
    if (!settings) return pass();
    const verdict = evaluateFatigue({
      state: ctx.fatigue,
      settings,
      importance: draft.importance,
      messageId: ctx.message.id,
      now: ctx.now,
      sendAt: draft.sendAt,
    });
    if (verdict.allowed) return change({ fatigueIfQueued: verdict.stateIfQueued });
    return drop(
      "suppressed",
      REASON.fatigue,
      verdict.stateToStore ? { fatigueAlways: verdict.stateToStore } : undefined,
    );
  },
};
