import {
  HookPayloadError,
  isAppError,
  parseToolCall,
  permissionHookOutput,
  type OnTimeout,
  type PermissionHookOutput,
  type Principal,
} from "@svc/core";
import { activeSessionGrants, findApprovalRequest } from "@svc/store";
import {
  createApprovalRequest,
  getApprovalRequest,
  serializeApproval,
  type ApprovalDeps,
} from "../approvals/approval-requests";
import { approvalChannel } from "../approvals/decide-request";
import type { ApprovalWaiters } from "../approvals/approval-waiters";
import { withdrawApprovalRequestBySender } from "../approvals/withdraw-request";
import { maskSecretsIn } from "../screening/secret-check";
import { validationError } from "../shared/validation";
import { askPermission, type PermissionPorts } from "./ask-permission";
import { grantOwnerOfPrincipal } from "./session-grants";

// POST /v1/hooks/claude-code/permission (docs/hooks.md "Asking over Claude Code's HTTP hooks"): Claude Code's
// PreToolUse or PermissionRequest input, answered with its hook output once a reviewer decided or
// the timeout passed; the same sequence as `svcctl hook --ask` (ask-permission.ts), with the API's
// own use cases as its ports. A client that goes away ends the wait and withdraws the request.

export interface PermissionHookOptions {
  reviewers: string[];
  timeoutSeconds: number;
  onTimeout: OnTimeout;
  project?: string;
  agent?: string;
}

export type PermissionHookDeps = ApprovalDeps & { approvalWaiters: ApprovalWaiters };

export async function answerPermissionHook(
  deps: PermissionHookDeps,
  principal: Principal,
  payload: unknown,
  options: PermissionHookOptions,
  signal?: AbortSignal,
): Promise<PermissionHookOutput | null> {
  let call;
  try {
    call = parseToolCall(payload, { project: options.project, agent: options.agent });
  } catch (error) {
    if (!(error instanceof HookPayloadError)) throw error;
    throw validationError([{ loc: ["body"], msg: error.message, type: "value_error" }]);
  }
  const current = async (id: string) => getApprovalRequest(deps, principal, id);
  const ports: PermissionPorts = {
    mask: (toolCall) => maskSecretsIn(toolCall),
    sessionGrants: async (sessionId) =>
      (await activeSessionGrants(deps.prisma, grantOwnerOfPrincipal(principal), sessionId, deps.now())).map(
        (grant) => ({ rules: grant.rules, granted_by: grant.granted_by }),
      ),
    createRequest: (input) => createApprovalRequest(deps, principal, input),
    async waitForDecision(id, until) {
      const last = await deps.approvalWaiters.wait({
        channel: approvalChannel(id),
        key: principal.keyId,
        until,
        signal,
        read: () => findApprovalRequest(deps.prisma, id),
        done: (row) => row === null || serializeApproval(row, deps.now()).status !== "pending",
      });
      return last ? serializeApproval(last, deps.now()) : current(id);
    },
    async withdraw(id) {
      try {
        return await withdrawApprovalRequestBySender(deps, principal, id);
      } catch (error) {
        // Somebody decided (or the deadline passed) first: that is the answer.
        if (isAppError(error) && error.code === "invalid_state") return current(id);
        throw error;
      }
    },
  };
  const answer = await askPermission(ports, call, {
    reviewers: options.reviewers,
    timeoutSeconds: options.timeoutSeconds,
    onTimeout: options.onTimeout,
    now: deps.now,
  });
  return permissionHookOutput(call.hook, answer.verdict);
}
