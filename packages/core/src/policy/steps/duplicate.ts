// docs/policy.md, "Duplicates": a real run returns the original message; a dry run shows `duplicate`.
import { drop, pass, type PolicyStep } from "../context";
import { REASON } from "../reasons";

export const duplicate: PolicyStep = {
  name: "duplicate",
  run: (ctx) => (ctx.message.duplicateOf ? drop("suppressed", REASON.duplicate) : pass()),
};
