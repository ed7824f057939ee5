import { AppError, type Principal } from "@svc/core";

/** Agent keys may read profiles but write nothing about people (docs/agents.md). */
export function assertMayWritePeople(principal: Principal): void {
  if (principal.agentKey) throw new AppError("forbidden", "agent keys may not change recipients");
}
