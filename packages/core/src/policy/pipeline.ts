// The delivery policy (docs/policy.md, "Order of the steps"), read top to bottom.
// load (caller) → decide (here, pure) → apply (caller). Each step returns pass, drop, defer,
// change or hold; defer and change reshape the draft and go on, drop and hold end the run.
// Screening happens at delivery, outside this list.
import type { PolicyContext, PolicyDecision, PolicyDraft, PolicyStep, StepTrace } from "./context";
import type { DecidedStatus } from "./message-status";
import { agentBudget } from "./steps/agent-budget";
import { approval } from "./steps/approval";
import { complianceCap } from "./steps/compliance-cap";
import { consentExpiry } from "./steps/consent-expiry";
import { cooldown } from "./steps/cooldown";
import { duplicate } from "./steps/duplicate";
import { expiry } from "./steps/expiry";
import { fatigue } from "./steps/fatigue";
import { frequencyCaps } from "./steps/frequency-caps";
import { importanceCeiling } from "./steps/importance-ceiling";
import { reachability } from "./steps/reachability";
import { rendering } from "./steps/rendering";
import { sendTime } from "./steps/send-time";
import { unsubscribe } from "./steps/unsubscribe";

export const POLICY_STEPS: readonly PolicyStep[] = [
  importanceCeiling, // agents' max_importance, so later exemptions judge the real level
  duplicate,
  unsubscribe,
  consentExpiry,
  reachability,
  sendTime, // rule delay, quiet hours, US texting hours
  complianceCap,
  expiry,
  cooldown,
  frequencyCaps,
  fatigue,
  agentBudget,
  rendering,
  approval,
];

export async function decidePolicy<C>(
  ctx: PolicyContext<C>,
  steps: readonly PolicyStep[] = POLICY_STEPS,
): Promise<PolicyDecision<C>> {
  const due =
    ctx.message.dueAt && ctx.message.dueAt.getTime() > ctx.now.getTime() ? ctx.message.dueAt : ctx.now;
  let draft: PolicyDraft = {
    importance: ctx.message.importance,
    claimedImportance: ctx.message.importance,
    channels: [...ctx.message.channels],
    sendAt: due,
    content: null,
    fatigueAlways: null,
    fatigueIfQueued: null,
  };
  const trace: StepTrace[] = [];
  const finish = (status: DecidedStatus, reason: string | null) =>
    decision(ctx, draft, status, reason, trace) as PolicyDecision<C>;

  for (const step of steps) {
    const outcome = await step.run(ctx as PolicyContext, draft);
    switch (outcome.kind) {
      case "pass":
        trace.push({ step: step.name, outcome: "pass" });
        break;
      case "defer": {
        // Steps only move the send time forward; an earlier `until` would undo a previous step.
        const sendAt = outcome.until.getTime() > draft.sendAt.getTime() ? outcome.until : draft.sendAt;
        draft = { ...draft, sendAt };
        trace.push({ step: step.name, outcome: "defer", detail: sendAt.toISOString() });
        break;
      }
      case "change":
        draft = { ...draft, ...outcome.patch };
        trace.push({ step: step.name, outcome: "change", detail: Object.keys(outcome.patch).join(",") });
        break;
      case "drop":
        draft = { ...draft, ...outcome.patch };
        trace.push({ step: step.name, outcome: "drop", detail: outcome.reason });
        return finish(outcome.status, outcome.reason);
      case "hold":
        trace.push({
          step: step.name,
          outcome: "hold",
          ...(outcome.reason ? { detail: outcome.reason } : {}),
        });
        return finish("pending_approval", outcome.reason);
    }
  }
  return finish("queued", null);
}

function decision(
  ctx: PolicyContext<unknown>,
  draft: PolicyDraft,
  status: DecidedStatus,
  reason: string | null,
  steps: StepTrace[],
): PolicyDecision {
  const agent = ctx.message.agent;
  return {
    status,
    statusReason: reason,
    sendAt: draft.sendAt,
    importance: draft.importance,
    claimedImportance: draft.claimedImportance,
    channels: [...draft.channels],
    content: draft.content,
    fatigue: status === "queued" ? (draft.fatigueIfQueued ?? draft.fatigueAlways) : draft.fatigueAlways,
    approvalExpiresAt:
      status === "pending_approval" && agent
        ? new Date(ctx.now.getTime() + agent.approvalTtlSeconds * 1000)
        : null,
    duplicateOf: ctx.message.duplicateOf,
    steps,
  };
}
