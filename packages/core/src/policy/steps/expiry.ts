// docs/policy.md, "Expiry": a message that would arrive after its expires_at is dropped.
import { drop, pass, type PolicyStep } from "../context";
import { REASON } from "../reasons";

export const expiry: PolicyStep = {
  name: "expiry",
  run(ctx, draft) {
    const expiresAt = ctx.message.expiresAt;
    return expiresAt && draft.sendAt.getTime() > expiresAt.getTime()
      ? drop("suppressed", REASON.expired)
      : pass();
  },
};
