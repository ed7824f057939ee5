import { AppError, newId, sessionGrantRules, toolCallOfMetadata } from "@svc/core";
import type { BulkItem } from "@svc/queue";
import {
  $transaction,
  decideApprovalRequest,
  expireApprovalRequests,
  findApprovalRequest,
  insertSessionGrant,
  type ApprovalRequestRow,
  type Transaction,
} from "@svc/store";
import { callbackJob, recordDecisionCallback } from "../shared/record-callback";
import { kickOutbox, recordOutbox } from "../outbox/outbox";
import { webhookEntries } from "../outbox/emit";
import { validationError } from "../shared/validation";
import { enqueueAfterCommit } from "../shared/after-commit";
import type { ApprovalDeps } from "./approval-requests";
import { requestDecisionBody } from "./decision-callbacks";
import type { Decider, Decision } from "./decide-held-message";

// Deciding an approval request (docs/approvals.md "Approval requests"), by key or review link: once,
// compare-and-set on `pending`; past its deadline it expires instead. Every end of a request writes
// its callback and its outbox entry in the same transaction (docs/outbox.md); an approval "for
// this session" also writes the session grant (docs/hooks.md "Allow for this session").

export type RequestDecisionResult =
  | { kind: "decided"; request: ApprovalRequestRow }
  | { kind: "expired"; request: ApprovalRequestRow }
  | { kind: "not_waiting"; request: ApprovalRequestRow };

/** Who may read a request's session grants: its agent, or the key that asked when no agent did. */
const grantOwnerOf = (row: Pick<ApprovalRequestRow, "agent_key" | "api_key_id">): string =>
  row.agent_key ?? `key:${row.api_key_id}`;

/** The rules "Allow for this session" would grant for a request; null when it cannot be granted. */
export function sessionRulesOf(
  row: Pick<ApprovalRequestRow, "metadata">,
): { sessionId: string; rules: string[] } | null {
  const call = toolCallOfMetadata(row.metadata);
  const rules = call ? sessionGrantRules(call) : null;
  return call?.session_id && rules ? { sessionId: call.session_id, rules } : null;
}

/** Decides a pending request once (compare-and-set); past its deadline it expires instead. */
export async function decideApprovalRequestOnce(
  deps: ApprovalDeps,
  id: string,
  decision: Decision,
  decider: Decider,
): Promise<RequestDecisionResult> {
  const forSession = decision.action === "approve" && decision.forSession === true;
  const grant = forSession ? await sessionGrantFor(deps, id) : null;
  const jobs: BulkItem[] = [];
  let told = false;
  const result = await $transaction(deps.prisma, async (tx): Promise<RequestDecisionResult> => {
    const now = deps.now();
    const comment = (decision.action === "approve" ? decision.comment : decision.reason)?.trim() || null;
    const sessionGrant = grant && {
      session_id: grant.sessionId,
      rules: grant.rules,
      expires_at: new Date(now.getTime() + deps.config.approvals.session_grant_seconds * 1000),
    };
    const decided = await decideApprovalRequest(tx, id, {
      status: decision.action === "approve" ? "approved" : "rejected",
      decidedBy: decider.name,
      decidedByKeyId: decider.keyId,
      comment,
      sessionGrant: sessionGrant && { ...sessionGrant, expires_at: sessionGrant.expires_at.toISOString() },
      now,
    });
    if (decided) {
      if (sessionGrant) {
        await insertSessionGrant(tx, {
          id: newId("sessionGrant", now.getTime()),
          owner: grantOwnerOf(decided),
          sessionId: sessionGrant.session_id,
          rules: sessionGrant.rules,
          approvalId: decided.id,
          grantedBy: decider.name,
          now,
          expiresAt: sessionGrant.expires_at,
        });
      }
      await recordRequestOutcome(tx, deps, decided, decided.status as "approved" | "rejected", jobs);
      told = true;
      return { kind: "decided", request: decided };
    }
    const [expired] = await expireApprovalRequests(tx, now, { id, limit: 1 });
    if (expired) {
      await recordRequestOutcome(tx, deps, expired, "expired", jobs);
      told = true;
      return { kind: "expired", request: expired };
    }
    const current = await findApprovalRequest(tx, id);
    if (!current) throw new AppError("not_found", `no approval request '${id}'`);
    return { kind: "not_waiting", request: current };
  });
  if (told) kickOutbox(deps.queues);
  await enqueueAfterCommit(deps, { jobs });
  return result;
}

/** The grant an approval "for this session" would write; 422 for a request that is no such tool call. */
async function sessionGrantFor(
  deps: ApprovalDeps,
  id: string,
): Promise<{ sessionId: string; rules: string[] }> {
  const row = await findApprovalRequest(deps.prisma, id);
  if (!row) throw new AppError("not_found", `no approval request '${id}'`);
  const grant = sessionRulesOf(row);
  if (!grant) {
    throw validationError([
      {
        loc: ["body", "for_session"],
        msg: "only a coding agent's tool call with a session can be allowed for the session",
        type: "value_error",
      },
    ]);
  }
  return grant;
}

/** The channel a request's changes are told on (docs/outbox.md "Notices"): waiting reads listen there. */
export const approvalChannel = (id: string) => `approvals:${id}`;

/**
 * What a request's end writes beside it, in its transaction: the decision callback and the outbox
 * entries: `approval.decided` (`{approval_id, kind, status}`, told on `approvals:<id>`) that wakes the
 * reads waiting for it, and the `approval.decided` webhook event. The caller kicks the relay after the commit.
 */
export async function recordRequestOutcome(
  tx: Transaction,
  deps: Pick<ApprovalDeps, "config" | "now">,
  request: ApprovalRequestRow,
  status: "approved" | "rejected" | "expired",
  jobs: BulkItem[],
): Promise<void> {
  const callbackId = await recordDecisionCallback(tx, deps, requestDecisionBody(request, status));
  if (callbackId) jobs.push(callbackJob(callbackId));
  // One insert: the waiting reads' notice and the webhook event (docs/webhooks.md).
  await recordOutbox(tx, [
    {
      topic: "approval.decided",
      payload: { approval_id: request.id, kind: "action", status },
      notify: approvalChannel(request.id),
    },
    ...webhookEntries([
      {
        type: "approval.decided",
        occurredAt: request.decided_at ?? deps.now(),
        subject: { kind: "approval", id: request.id },
        snapshot: { status, decided_by: request.decided_by, decided_at: request.decided_at },
      },
    ]),
  ]);
}
