// docs/preferences.md, "Opt-in records": after a recorded opt-in's expires_at, the category's
// messages are suppressed until consent is recorded again (which replaces the expiry the caller
// loads).
import { drop, pass, type PolicyStep } from "../context";
import { REASON } from "../reasons";

export const consentExpiry: PolicyStep = {
  name: "consent_expiry",
  run(ctx) {
    const expiries = ctx.recipient.consentExpiresAt;
    const expiresAt = Object.hasOwn(expiries, ctx.category.key) ? expiries[ctx.category.key] : undefined;
    return expiresAt && ctx.now.getTime() >= expiresAt.getTime()
      ? drop("suppressed", REASON.consentExpired)
      : pass();
  },
};
