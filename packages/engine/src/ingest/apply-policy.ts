import type { EventRuleOutcome } from "@svc/core";
import type { JobHandler } from "@svc/queue";
import {
  $transaction,
  findEvent,
  findOutcome,
  findRule,
  lockRecipient,
  updateOutcome,
  type MessageStatus,
} from "@svc/store";
import type { HandOffDeps } from "../shared/hand-off";
import { enqueueFollowUps } from "./follow-ups";
import type { FollowUps, IngestDeps } from "./ingest-types";
import { composeMessage } from "../compose/compose-message";
import { outcomeOfMessage, outcomeOfMissingReference, ruleComposeRequest } from "./rule-message";

// Ingest composes each fired rule inline (one hop less per event). `apply-policy` stays as the
// catalog's way to (re)compose one (event, rule) on its own, e.g. re-driven by an operator: the
// dedup key `evt:<event>:<rule>` returns the message ingest already wrote instead of a second one.

export type ApplyPolicyResult =
  | { status: "composed"; outcome: EventRuleOutcome; followUps: FollowUps }
  | { status: "skipped"; reason: "event_not_processed" | "rule_not_firing" | "rule_gone" };

/** Only rules that fired for a message (matched, not blocked, not digested) are composed. */
const NOT_COMPOSED = new Set(["misconfigured", "agent_not_allowed", "agent_deleted", "digested"]);

export async function applyPolicy(
  deps: IngestDeps,
  { eventId, ruleKey }: { eventId: string; ruleKey: string },
): Promise<ApplyPolicyResult> {
  const peek = await findEvent(deps.prisma, eventId);
  if (!peek) return { status: "skipped", reason: "event_not_processed" };
  return $transaction(deps.prisma, async (tx) => {
    await lockRecipient(tx, peek.recipient_external_id);
    const event = await findEvent(tx, eventId);
    if (!event || event.status !== "processed" || !event.recipient_id)
      return { status: "skipped", reason: "event_not_processed" } as const;
    await lockRecipient(tx, event.recipient_id); // as ingest: external id, then internal id
    const stored = await findOutcome(tx, eventId, ruleKey);
    if (!stored || !stored.matched || NOT_COMPOSED.has(stored.reason ?? ""))
      return { status: "skipped", reason: "rule_not_firing" } as const;
    const rule = await findRule(tx, ruleKey);
    if (!rule || rule.digest !== null) return { status: "skipped", reason: "rule_gone" } as const;

    const now = deps.now();
    const followUps: FollowUps = { deliveries: [], digests: [], notices: [] };
    let outcome: EventRuleOutcome;
    try {
      const composed = await composeMessage(
        tx,
        { config: deps.config, now: () => now },
        ruleComposeRequest(event, rule, event.recipient_id),
      );
      const { message } = composed;
      outcome = outcomeOfMessage(ruleKey, message, true);
      followUps.notices.push(...composed.notices);
      if (message.status === "queued")
        followUps.deliveries.push({
          messageId: message.id,
          generation: message.generation,
          sendAt: message.send_at,
        });
    } catch (error) {
      outcome = outcomeOfMissingReference(ruleKey, error);
    }
    await updateOutcome(tx, eventId, {
      rule_key: ruleKey,
      matched: true,
      reason: outcome.reason ?? null,
      status: (outcome.status as MessageStatus | undefined) ?? null,
      message_id: outcome.message_id ?? null,
      digest_id: null,
    });
    return { status: "composed", outcome, followUps } as const;
  });
}

export function applyPolicyJob(deps: IngestDeps & HandOffDeps): JobHandler<"apply-policy"> {
  return async (payload) => {
    const result = await applyPolicy(deps, payload);
    if (result.status === "composed") await enqueueFollowUps(deps, result.followUps, deps.now());
    return result.status === "composed" ? { status: result.status, outcome: result.outcome } : result;
  };
}
