import { AppError, type Principal } from "@svc/core";
import { loadMessageFor } from "../shared/load-message";
import { serializeMessage, type MessageView } from "../shared/serialize-message";
import { serializeApproval, type ApprovalDeps, type ApprovalView } from "./approval-requests";
import { decideApprovalRequestOnce } from "./decide-request";
import { decideHeldMessage, type Decision, type HeldDecisionDeps } from "./decide-held-message";

// Decisions through the API (POST /v1/messages/{id}/approve|reject, /v1/approvals/{id}/approve|
// reject): keys not bound to an agent decide; `reviewed_by`/`decided_by` is the key's name, its id
// beside it. A late decision is 409 `Invalid state`: detail `expired` past the deadline (the item
// expires then), else what the item is now.

/** Agent keys never decide, their own items included (docs/agents.md "What an agent key may never do"). */
function assertMayDecide(principal: Principal): void {
  if (principal.agentKey !== null) throw new AppError("forbidden", "agent keys may not approve or reject");
}

const expired = () => new AppError("invalid_state", "expired");

export async function decideMessageByKey(
  deps: HeldDecisionDeps,
  principal: Principal,
  messageId: string,
  decision: Decision,
): Promise<MessageView> {
  assertMayDecide(principal);
  const result = await decideHeldMessage(deps, messageId, decision, {
    name: principal.keyName,
    keyId: principal.keyId,
  });
  if (result.kind === "expired") throw expired();
  if (result.kind === "not_waiting") {
    const { status } = result.message;
    throw new AppError(
      "invalid_state",
      `message is ${status}; only a message waiting for approval (pending_approval) can be ${verb(decision)}`,
    );
  }
  return serializeMessage(await loadMessageFor(deps.prisma, principal, messageId));
}

export async function decideApprovalByKey(
  deps: ApprovalDeps,
  principal: Principal,
  approvalId: string,
  decision: Decision,
): Promise<ApprovalView> {
  assertMayDecide(principal);
  const result = await decideApprovalRequestOnce(deps, approvalId, decision, {
    name: principal.keyName,
    keyId: principal.keyId,
  });
  if (result.kind === "expired") throw expired();
  if (result.kind === "not_waiting")
    throw new AppError(
      "invalid_state",
      `approval request is ${result.request.status}; only a pending request can be ${verb(decision)}`,
    );
  return serializeApproval(result.request, deps.now());
}

const verb = (decision: Decision) => (decision.action === "approve" ? "approved" : "rejected");
