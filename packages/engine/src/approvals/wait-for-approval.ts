import { approvalStatusAt, type Principal } from "@svc/core";
import { findApprovalRequest } from "@svc/store";
import type { EngineDeps } from "../deps";
import { loadApprovalFor, serializeApproval, type ApprovalView } from "./approval-requests";
import { approvalChannel } from "./decide-request";
import type { ApprovalWaiters } from "./approval-waiters";

// GET /v1/approvals/{id}?wait=SECONDS and the MCP tool get_approval's `wait_seconds` (docs/approvals.md
// "Waiting for the decision"): the request as soon as it is no longer pending, or as it stands when
// the wait (at most 30 s, never past the request's deadline) ends or the client goes away.

/** The longest wait one read may ask for. */
export const MAX_WAIT_SECONDS = 30;

export type WaitingReadDeps = EngineDeps & { approvalWaiters: ApprovalWaiters };

export async function getApprovalRequestWaiting(
  deps: WaitingReadDeps,
  principal: Principal,
  id: string,
  wait: { seconds: number; signal?: AbortSignal },
): Promise<ApprovalView> {
  const row = await loadApprovalFor(deps, principal, id);
  const now = deps.now();
  if (wait.seconds <= 0 || approvalStatusAt(row, now) !== "pending") return serializeApproval(row, now);
  const seconds = Math.min(wait.seconds, MAX_WAIT_SECONDS);
  // At its deadline the request reads `expired`: the wait ends there too.
  const until = new Date(Math.min(now.getTime() + seconds * 1000, row.expires_at.getTime()));
  const last = await deps.approvalWaiters.wait({
    channel: approvalChannel(id),
    key: principal.keyId,
    until,
    signal: wait.signal,
    read: () => findApprovalRequest(deps.prisma, id),
    done: (current) => current === null || approvalStatusAt(current, deps.now()) !== "pending",
  });
  return serializeApproval(last ?? row, deps.now());
}
