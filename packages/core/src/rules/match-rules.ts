import {
  buildConditionData,
  evaluateCondition,
  type ConditionEventInput,
  type ConditionRecipientInput,
} from "./condition";
import { patternSeesEvent, type EventSource } from "./event-pattern";
import { compareRules } from "./order";
import { isInRollout } from "./rollout";

/** The fields of a rule matching needs; callers pass their own richer rule type through. */
export interface MatchableRule {
  key: string;
  event: string;
  template: string;
  category: string;
  enabled?: boolean | null;
  priority?: number | null;
  stop_processing?: boolean | null;
  rollout_percent?: number | null;
  /** JSON Logic; null or absent means no condition. */
  condition?: unknown;
}

export interface MatchEvent extends ConditionEventInput {
  source: EventSource;
}

/** The agent that reported the event, as loaded now (null for the owner's backend). */
export interface MatchAgent {
  key: string;
  enabled: boolean;
  deleted: boolean;
  /** Categories the agent may use; null or absent means any, `[]` means none (docs/agents.md). */
  categories?: readonly string[] | null;
}

export type NotMatchedReason = "outside_rollout" | "condition_false" | `condition_error: ${string}`;
export type BlockedReason = "misconfigured" | "agent_not_allowed" | "agent_deleted";

/**
 * Per-rule result in rule order. `fire` means the caller composes a message or joins a digest
 * and records `digested` or the message's status and reason (docs/events.md, "Outcomes").
 */
export type RuleMatch<R extends MatchableRule = MatchableRule> =
  | { kind: "not_matched"; rule: R; matched: false; reason: NotMatchedReason }
  | { kind: "blocked"; rule: R; matched: true; reason: BlockedReason }
  | { kind: "fire"; rule: R; matched: true };

/** The outcome entry stored on the event (docs/events.md, "Outcomes"). */
export interface EventRuleOutcome {
  rule: string;
  matched: boolean;
  reason?: string;
  status?: string;
  message_id?: string;
  digest_id?: string;
}

export interface MatchRulesInput<R extends MatchableRule> {
  event: MatchEvent;
  recipient: ConditionRecipientInput;
  rules: readonly R[];
  agent?: MatchAgent | null;
  /** Keys of templates and categories that exist; a rule naming another is `misconfigured`. */
  existing: { templates: ReadonlySet<string>; categories: ReadonlySet<string> };
}

export function matchRules<R extends MatchableRule>(input: MatchRulesInput<R>): RuleMatch<R>[] {
  const { event, recipient, agent, existing } = input;
  const candidates = input.rules
    .filter((rule) => rule.enabled !== false && patternSeesEvent(rule.event, event))
    .sort(compareRules);
  const conditionData = buildConditionData(event, recipient);
  const results: RuleMatch<R>[] = [];

  for (const rule of candidates) {
    const notMatched = checkMatch(rule, recipient.external_id, conditionData);
    if (notMatched) {
      results.push({ kind: "not_matched", rule, matched: false, reason: notMatched });
      continue;
    }
    const blocked = checkBlocked(rule, agent ?? null, existing);
    results.push(
      blocked
        ? { kind: "blocked", rule, matched: true, reason: blocked }
        : { kind: "fire", rule, matched: true },
    );
    // Matched means in rollout and condition true, whatever happened after (docs/events.md, "Rules").
    if (rule.stop_processing) break;
  }
  return results;
}

function checkMatch(
  rule: MatchableRule,
  externalId: string,
  conditionData: unknown,
): NotMatchedReason | null {
  if (!isInRollout(rule.key, externalId, rule.rollout_percent)) return "outside_rollout";
  if (rule.condition === null || rule.condition === undefined) return null;
  const result = evaluateCondition(rule.condition, conditionData);
  if (!result.ok) return `condition_error: ${result.detail}`;
  return result.value ? null : "condition_false";
}

// A broken rule is the operator's problem whoever sent the event, so it is reported first.
function checkBlocked(
  rule: MatchableRule,
  agent: MatchAgent | null,
  existing: MatchRulesInput<MatchableRule>["existing"],
): BlockedReason | null {
  if (!existing.templates.has(rule.template) || !existing.categories.has(rule.category))
    return "misconfigured";
  if (!agent) return null;
  if (agent.deleted) return "agent_deleted";
  if (!agent.enabled) return "agent_not_allowed";
  if (agent.categories != null && !agent.categories.includes(rule.category)) return "agent_not_allowed";
  return null;
}

/** The stored shape of a non-firing result; firing results get their reason from the caller. */
export function toEventRuleOutcome(
  match: RuleMatch,
  extra: Omit<EventRuleOutcome, "rule" | "matched"> = {},
): EventRuleOutcome {
  const outcome: EventRuleOutcome = { rule: match.rule.key, matched: match.matched };
  if (match.kind !== "fire") outcome.reason = match.reason;
  return { ...outcome, ...extra };
}
