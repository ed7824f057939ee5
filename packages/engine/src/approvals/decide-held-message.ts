import { AppError, checkDecision, REASON, rejectedReason } from "@svc/core";
import type { BulkItem } from "@svc/queue";
import {
  $transaction,
  approveHeldMessage,
  expireHeldMessages,
  findMessage,
  lockRecipient,
  rejectHeldMessage,
  saveFatigueState,
  type MessageRow,
  type Transaction,
} from "@svc/store";
import { callbackJob, recordDecisionCallback } from "../shared/record-callback";
import type { EngineDeps } from "../deps";
import { recordFinalRows } from "../metrics/record-metrics";
import { enqueueAfterCommit } from "../shared/after-commit";
import { messageDecisionBody, type MessageDecision } from "./decision-callbacks";
import { recheckApprovedMessage } from "./recheck-approved";
import { emitWebhookEvents, heldMessageDecisionEmissions } from "../outbox/emit";
import type { DecisionQueues } from "./decision-types";

// Deciding a held message (docs/approvals.md "Held messages"): by API key or review link, once.
// Approve re-checks the policy and queues it (reviewed_by, reviewed_at); reject cancels it with
// `rejected` or `rejected: <reason>`; after the review deadline it expires instead (`suppressed`,
// `expired`). Every write is compare-and-set on `pending_approval` under the person's lock, so of
// any number of simultaneous decisions exactly one wins; the callback and the message's webhook
// event (`message.queued`, `message.cancelled`, `message.suppressed`, …) are recorded with it.

export interface Decider {
  /** The key's name, or `link:<reviewer>`. */
  name: string;
  keyId: string | null;
}

export type Decision =
  | {
      action: "approve";
      comment?: string | null;
      /** An approval request's tool call, allowed for the rest of its session (docs/hooks.md). */
      forSession?: boolean;
    }
  | { action: "reject"; reason?: string | null };

export type HeldDecisionResult =
  | { kind: "decided"; message: MessageRow }
  /** The deadline had passed: the message expired now instead. */
  | { kind: "expired"; message: MessageRow }
  /** Decided, cancelled or expired before: nothing changed. */
  | { kind: "not_waiting"; message: MessageRow };

export type HeldDecisionDeps = EngineDeps & { queues: DecisionQueues };

export async function decideHeldMessage(
  deps: HeldDecisionDeps,
  messageId: string,
  decision: Decision,
  decider: Decider,
): Promise<HeldDecisionResult> {
  const peek = await findMessage(deps.prisma, messageId);
  if (!peek) throw new AppError("not_found", `no message '${messageId}'`);
  const jobs: BulkItem[] = [];
  const result = await $transaction(deps.prisma, async (tx): Promise<HeldDecisionResult> => {
    await lockRecipient(tx, peek.recipient_id);
    const message = await findMessage(tx, messageId);
    if (!message) throw new AppError("not_found", `no message '${messageId}'`);
    const now = deps.now();
    const deadline = message.approval_expires_at ?? message.send_at;
    const check = checkDecision({ waiting: message.status === "pending_approval", deadline }, now);
    if (!check.ok && check.why === "not_waiting") return { kind: "not_waiting", message };
    if (!check.ok) return expireNow(tx, deps, message, jobs);
    return decision.action === "approve"
      ? approve(tx, deps, message, decision.comment ?? null, decider, jobs)
      : reject(tx, deps, message, decision.reason ?? null, decider, jobs);
  });
  await enqueueAfterCommit(deps, { jobs });
  // Rejected (`cancelled`), expired, or suppressed by the re-check of an approval.
  if (result.kind !== "not_waiting") recordFinalRows([result.message]);
  return result;
}

async function approve(
  tx: Transaction,
  deps: HeldDecisionDeps,
  message: MessageRow,
  comment: string | null,
  decider: Decider,
  jobs: BulkItem[],
): Promise<HeldDecisionResult> {
  const now = deps.now();
  const { row, fatigue } = await recheckApprovedMessage(tx, { config: deps.config, now: () => now }, message);
  const approved = await approveHeldMessage(tx, message.id, {
    status: row.status,
    statusReason: row.status_reason,
    sendAt: row.send_at,
    importance: row.importance,
    channels: row.channels,
    reviewedBy: decider.name,
    reviewedByKeyId: decider.keyId,
    now,
  });
  if (!approved) return { kind: "not_waiting", message: (await findMessage(tx, message.id)) ?? message };
  if (fatigue) await saveFatigueState(tx, approved.recipient_id, approved.category, fatigue, now);
  const approval = { status: "approved" as const, decidedBy: decider.name, decidedAt: now };
  await emitWebhookEvents(tx, heldMessageDecisionEmissions(approved, approval, now));
  await recordCallback(
    tx,
    deps,
    approved,
    { status: "approved", decidedBy: decider.name, comment, decidedAt: now },
    jobs,
  );
  if (approved.status === "queued")
    jobs.push({
      name: "deliver-message",
      payload: { messageId: approved.id, generation: approved.generation },
      opts: { sendAt: approved.send_at },
    });
  return { kind: "decided", message: approved };
}

async function reject(
  tx: Transaction,
  deps: HeldDecisionDeps,
  message: MessageRow,
  reason: string | null,
  decider: Decider,
  jobs: BulkItem[],
): Promise<HeldDecisionResult> {
  const now = deps.now();
  const rejected = await rejectHeldMessage(tx, message.id, {
    reason: rejectedReason(reason),
    reviewedBy: decider.name,
    reviewedByKeyId: decider.keyId,
    now,
  });
  if (!rejected) return { kind: "not_waiting", message: (await findMessage(tx, message.id)) ?? message };
  const rejection = { status: "rejected" as const, decidedBy: decider.name, decidedAt: now };
  await emitWebhookEvents(tx, heldMessageDecisionEmissions(rejected, rejection, now));
  const comment = reason?.trim() ? reason.trim() : null;
  await recordCallback(
    tx,
    deps,
    rejected,
    { status: "rejected", decidedBy: decider.name, comment, decidedAt: now },
    jobs,
  );
  return { kind: "decided", message: rejected };
}

async function expireNow(
  tx: Transaction,
  deps: HeldDecisionDeps,
  message: MessageRow,
  jobs: BulkItem[],
): Promise<HeldDecisionResult> {
  const now = deps.now();
  const [expired] = await expireHeldMessages(tx, now, REASON.expired, { id: message.id, limit: 1 });
  if (!expired) return { kind: "not_waiting", message: (await findMessage(tx, message.id)) ?? message };
  await emitWebhookEvents(tx, heldMessageDecisionEmissions(expired, expiryOf(expired), now));
  await recordCallback(tx, deps, expired, expiryOf(expired), jobs);
  return { kind: "expired", message: expired };
}

/** How an expired held message is reported: nobody decided, at its deadline. */
export function expiryOf(message: MessageRow): MessageDecision {
  return {
    status: "expired",
    decidedBy: null,
    comment: null,
    decidedAt: message.approval_expires_at ?? message.updated_at,
  };
}

async function recordCallback(
  tx: Transaction,
  deps: HeldDecisionDeps,
  message: MessageRow,
  decision: MessageDecision,
  jobs: BulkItem[],
): Promise<void> {
  const id = await recordDecisionCallback(tx, deps, messageDecisionBody(message, decision));
  if (id) jobs.push(callbackJob(id));
}
