import { drop, pass, type PolicyStep } from "../context";
import { REASON } from "../reasons";

export const unsubscribe: PolicyStep = {
  name: "unsubscribe",
  run(ctx) {
    const { category, recipient } = ctx;
    // Categories that forbid unsubscribing (transactional) ignore a stored opt-out.
    if (!category.allowUnsubscribe) return pass();
    return recipient.unsubscribedCategories.includes(category.key)
      ? drop("suppressed", REASON.unsubscribed)
      : pass();
  },
};
