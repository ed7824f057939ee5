import type { EventRuleOutcome, MessageStatus } from "@svc/core";
import { saveFatigueState, writeIngestedEvents, type OutcomeWrite, type Transaction } from "@svc/store";
import { announceHeldItems, heldMessageNotice, type NoticeDeps } from "../shared/review-notices";
import { messageStatusEmissions, webhookEntries, type WebhookEmission } from "../outbox/emit";
import type { EventDecision } from "./decide-event";
import type { IngestResult } from "./ingest-types";

/**
 * Writes decided events in one statement (messages, outcomes, `processed`, and the webhook events
 * of each event and message: docs/webhooks.md), then the fatigue they leave and the reviewers' notices of messages held for approval (their event ids join the
 * decision's follow-ups).
 */
export async function writeDecisions(
  tx: Transaction,
  deps: NoticeDeps,
  now: Date,
  decisions: readonly EventDecision[],
): Promise<void> {
  await writeIngestedEvents(
    tx,
    now,
    decisions.map((d) => ({
      eventId: d.eventId,
      recipientId: d.recipientId,
      messages: d.messages,
      outcomes: d.outcomes.map(outcomeWrite),
    })),
    webhookEntries(decisions.flatMap((d) => decisionEmissions(d, now))),
  );
  for (const decision of decisions) {
    for (const [category, state] of decision.fatigue)
      await saveFatigueState(tx, decision.recipientId, category, state, now);
    const held = decision.messages.filter((m) => m.status === "pending_approval");
    if (held.length > 0) {
      const items = held.map((message) => heldMessageNotice(message, decision.agent));
      decision.followUps.notices.push(...(await announceHeldItems(tx, deps, items)));
    }
  }
}

/** `event.processed`, then each message's status (`message.queued`, …), as the write leaves them. */
function decisionEmissions(decision: EventDecision, now: Date): WebhookEmission[] {
  return [
    {
      type: "event.processed",
      occurredAt: now,
      subject: { kind: "event", id: decision.eventId },
      snapshot: { status: "processed" },
    },
    ...messageStatusEmissions(decision.messages, now),
  ];
}

export function processedResult(decision: EventDecision): Extract<IngestResult, { status: "processed" }> {
  return { status: "processed", outcomes: decision.outcomes, followUps: decision.followUps };
}

function outcomeWrite(outcome: EventRuleOutcome): OutcomeWrite {
  return {
    rule_key: outcome.rule,
    matched: outcome.matched,
    reason: outcome.reason ?? null,
    status: (outcome.status as MessageStatus | undefined) ?? null,
    message_id: outcome.message_id ?? null,
    digest_id: outcome.digest_id ?? null,
  };
}
