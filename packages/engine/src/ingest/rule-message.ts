import type { EventRuleOutcome } from "@svc/core";
import type { EventRow, MessageRow, RuleRow } from "@svc/store";
import { ComposeReferenceError } from "../compose/compose-errors";
import type { ComposeRequest } from "../compose/compose-types";

export type RuleEvent = Pick<
  EventRow,
  "id" | "name" | "created_at" | "sender" | "agent_key" | "api_key_id"
> & { data: unknown };

/** `evt:<event>:<rule>`: a retried ingest (or apply-policy) finds the message instead of writing a second. */
const ruleDedupKey = (eventId: string, ruleKey: string) => `evt:${eventId}:${ruleKey}`;

export function ruleComposeRequest(
  event: RuleEvent,
  rule: RuleRow,
  recipientId: string,
  options: { dryRun?: boolean; dedupEventId?: string } = {},
): ComposeRequest {
  return {
    recipientId,
    template: rule.template,
    category: rule.category,
    channels: rule.channels,
    importance: rule.importance,
    data: (event.data ?? {}) as Record<string, unknown>,
    sender: event.sender,
    agentKey: event.agent_key,
    apiKeyId: event.api_key_id,
    rule: {
      key: rule.key,
      delaySeconds: rule.delay_seconds,
      cooldownSeconds: rule.cooldown_seconds,
      expiresInSeconds: rule.expires_in_seconds,
    },
    event: { id: event.id, name: event.name, created_at: event.created_at },
    dedupKey: ruleDedupKey(options.dedupEventId ?? event.id, rule.key),
    // expires_at = event time + expires_in (docs/policy.md, "Expiry").
    expiresAt:
      rule.expires_in_seconds === null
        ? null
        : new Date(event.created_at.getTime() + rule.expires_in_seconds * 1000),
    dryRun: options.dryRun ?? false,
  };
}

/**
 * The outcome of a fired rule whose message was composed (docs/events.md "Outcomes"): its
 * `status`, `message_id` (not in a dry run) and the message's `status_reason` as `reason`.
 */
export function outcomeOfMessage(ruleKey: string, message: MessageRow, stored: boolean): EventRuleOutcome {
  const outcome: EventRuleOutcome = { rule: ruleKey, matched: true, status: message.status };
  if (stored) outcome.message_id = message.id;
  if (message.status_reason !== null) outcome.reason = message.status_reason;
  return outcome;
}

/**
 * The outcome of a fired rule whose message could not be composed: a category gone since matching
 * is the rule's misconfiguration, a deleted agent is reported. Anything else is rethrown.
 */
export function outcomeOfMissingReference(ruleKey: string, error: unknown): EventRuleOutcome {
  if (!(error instanceof ComposeReferenceError) || error.reference === "recipient") throw error;
  return {
    rule: ruleKey,
    matched: true,
    reason: error.reference === "agent" ? "agent_deleted" : "misconfigured",
  };
}
