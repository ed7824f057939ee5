import type { EventRuleOutcome } from "@svc/core";
import type { EventRow, MessageRow, RuleRow, TransactionClient } from "@svc/store";
import { ComposeReferenceError } from "../compose/compose-errors";
import { composeMessage } from "../compose/compose-message";
import type { ComposeDeps, ComposeRequest } from "../compose/compose-types";

export type RuleEvent = Pick<
  EventRow,
  "id" | "name" | "created_at" | "sender" | "agent_key" | "api_key_id"
> & { data: unknown };

/** `evt:<event>:<rule>`: a retried ingest (or apply-policy) finds the message instead of writing a second. */
export const ruleDedupKey = (eventId: string, ruleKey: string) => `evt:${eventId}:${ruleKey}`;

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
    // DECISIONS "Events and rules": expires_at = event time + expires_in.
    expiresAt:
      rule.expires_in_seconds === null
        ? null
        : new Date(event.created_at.getTime() + rule.expires_in_seconds * 1000),
    dryRun: options.dryRun ?? false,
  };
}

export interface RuleMessageOutcome {
  outcome: EventRuleOutcome;
  /** The stored (or, in a dry run, decided) message; null when none could be composed. */
  message: MessageRow | null;
}

/**
 * Composes the message of one fired rule and its outcome entry (SPEC 7.2): `status`,
 * `message_id` and the message's `status_reason` as `reason` (absent when null). A category or
 * agent that vanished since matching reports `misconfigured` / `agent_deleted`.
 */
export async function composeRuleMessage(
  tx: TransactionClient,
  deps: ComposeDeps,
  request: ComposeRequest,
): Promise<RuleMessageOutcome> {
  const ruleKey = request.rule!.key;
  try {
    const { message } = await composeMessage(tx, deps, request);
    const outcome: EventRuleOutcome = { rule: ruleKey, matched: true, status: message.status };
    if (!request.dryRun) outcome.message_id = message.id;
    if (message.status_reason !== null) outcome.reason = message.status_reason;
    return { outcome, message };
  } catch (error) {
    if (!(error instanceof ComposeReferenceError) || error.reference === "recipient") throw error;
    const reason = error.reference === "agent" ? "agent_deleted" : "misconfigured";
    return { outcome: { rule: ruleKey, matched: true, reason }, message: null };
  }
}
