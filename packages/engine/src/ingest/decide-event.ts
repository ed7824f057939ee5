import {
  matchRules,
  newId,
  toEventRuleOutcome,
  type EventRuleOutcome,
  type FatigueState,
  type MatchAgent,
  type RuleMatch,
} from "@svc/core";
import {
  createBareRecipient,
  type AgentRow,
  type EventRow,
  type FatigueStateRow,
  type IngestSnapshot,
  type MessageRow,
  type RecipientWithPolicyRows,
  type RuleRow,
  type Transaction,
} from "@svc/store";
import { ComposeReferenceError } from "../compose/compose-errors";
import { decideMessage } from "../compose/compose-message";
import type { CompositionRows } from "../compose/composition-rows";
import { writeProfile, type RecipientProfileInput } from "../recipients/recipient-profile";
import type { IngestConfig } from "./ingest-config-cache";
import { snapshotReads, type IngestReads } from "./ingest-reads";
import type { FollowUps, IngestDeps } from "./ingest-types";
import { joinDigest } from "./join-digest";
import { outcomeOfMessage, outcomeOfMissingReference, ruleComposeRequest } from "./rule-message";

// The one decision of an event (docs/events.md "What happens to an event"), for ingest and for the
// dry run alike: the person (the inline profile applied, or a bare profile made), the rules that
// match, and per firing rule a digest join or a decided message with its outcome. Runs inside the
// caller's transaction holding the person's locks; reads go through `reads` (either way of reading
// gives the same decision), digest joins are written at once, messages are returned for the
// caller to write with the outcomes in one statement.

/** The event fields the decision reads. */
export type DecidableEvent = Pick<
  EventRow,
  | "id"
  | "name"
  | "created_at"
  | "data"
  | "source"
  | "sender"
  | "agent_key"
  | "api_key_id"
  | "recipient_external_id"
  | "recipient_profile"
>;

export interface DecideEventOptions {
  /** Decide only: no profile written, no digest joined; a digest rule reports `digested`. */
  dryRun?: boolean;
  /** The dry run of an event sent again: its rules' messages are looked up under this event's id. */
  dedupEventId?: string;
}

export interface EventDecision {
  eventId: string;
  recipientId: string;
  outcomes: EventRuleOutcome[];
  /** Messages decided and not written yet, in rule order (none in a dry run). */
  messages: MessageRow[];
  /** The fatigue state each category is left in by those messages. */
  fatigue: Map<string, FatigueState>;
  /** The reporting agent's row (its reviewers are told of messages it holds). */
  agent: AgentRow | null;
  followUps: FollowUps;
}

export async function decideEvent(
  tx: Transaction,
  deps: IngestDeps,
  reads: IngestReads,
  event: DecidableEvent,
  now: Date,
  options: DecideEventOptions = {},
): Promise<EventDecision> {
  const textChannels = deps.config.compliance.sms_channels;
  const recipient = await recipientOf(tx, reads, event, now, options.dryRun ?? false, textChannels);
  const config = await reads.configuration();
  const agent = event.agent_key ? await reads.agent(event.agent_key) : null;
  const matches = matchRules({
    event: {
      id: event.id,
      name: event.name,
      created_at: event.created_at,
      data: event.data as Record<string, unknown>,
      source: event.source,
    },
    recipient: { ...recipient, attributes: recipient.attributes as Record<string, unknown> },
    rules: config.rules,
    agent: event.agent_key ? matchAgentOf(event.agent_key, agent) : null,
    existing: { templates: keySet(config.templates), categories: keySet(config.categories) },
  });

  const decision: EventDecision = {
    eventId: event.id,
    recipientId: recipient.id,
    outcomes: [],
    messages: [],
    fatigue: new Map(),
    agent,
    followUps: { deliveries: [], digests: [], notices: [] },
  };
  const context: RuleContext = { tx, deps, reads, event, now, options, recipient, agent, config, decision };
  for (const match of matches) decision.outcomes.push(await outcomeOf(context, match));
  return decision;
}

/** The decision of an event from the snapshot ingest read (in `tx`, under the person's locks). */
export function decideSnapshot(
  tx: Transaction,
  deps: IngestDeps,
  snapshot: IngestSnapshot,
  now: Date,
): Promise<EventDecision> {
  return decideEvent(tx, deps, snapshotReads(deps.prisma, tx, snapshot), snapshot.event, now);
}

interface RuleContext {
  tx: Transaction;
  deps: IngestDeps;
  reads: IngestReads;
  event: DecidableEvent;
  now: Date;
  options: DecideEventOptions;
  recipient: RecipientWithPolicyRows;
  agent: AgentRow | null;
  config: IngestConfig;
  decision: EventDecision;
}

/** The person as composition sees them, after the inline profile (or a bare profile for someone new). */
async function recipientOf(
  tx: Transaction,
  reads: IngestReads,
  event: DecidableEvent,
  now: Date,
  dryRun: boolean,
  textChannels: readonly string[],
): Promise<RecipientWithPolicyRows> {
  const externalId = event.recipient_external_id;
  const changed = event.recipient_profile !== null && !dryRun;
  if (changed) {
    const profile = event.recipient_profile as RecipientProfileInput;
    await writeProfile(tx, externalId, profile, now, textChannels);
  }
  const found = await reads.recipient(externalId, changed);
  if (found) return found;
  if (dryRun) throw new ComposeReferenceError("recipient", externalId);
  // Every outcome and message points at a person; later profile writes fill this one in.
  const bare = await createBareRecipient(tx, { id: newId("recipient", now.getTime()), externalId, now });
  return { ...bare, addresses: [], consents: [] };
}

async function outcomeOf(context: RuleContext, match: RuleMatch<RuleRow>): Promise<EventRuleOutcome> {
  if (match.kind !== "fire") return toEventRuleOutcome(match);
  return match.rule.digest !== null
    ? digestOutcome(context, match.rule)
    : messageOutcome(context, match.rule);
}

async function digestOutcome(context: RuleContext, rule: RuleRow): Promise<EventRuleOutcome> {
  const { tx, deps, event, now, recipient, decision } = context;
  // The dry run reports what would happen without grouping (docs/digests.md).
  if (context.options.dryRun) return { rule: rule.key, matched: true, reason: "digested" };
  const joined = await joinDigest(tx, { config: deps.config, now }, { rule, event, recipient });
  // A digest key that cannot render for this event is the rule's fault.
  if (!joined.ok) return { rule: rule.key, matched: true, reason: "misconfigured" };
  decision.followUps.digests.push(joined.join);
  return { rule: rule.key, matched: true, reason: "digested", digest_id: joined.join.digestId };
}

async function messageOutcome(context: RuleContext, rule: RuleRow): Promise<EventRuleOutcome> {
  const { tx, deps, reads, event, now, options, recipient, config, decision } = context;
  const dryRun = options.dryRun ?? false;
  const request = ruleComposeRequest(event, rule, recipient.id, {
    dryRun,
    dedupEventId: options.dedupEventId,
  });
  // Only a retried event (or the dry run of a repeated one) finds its message already written.
  const original = request.dedupKey ? await reads.messageByDedupKey(request.dedupKey) : null;
  if (original && !dryRun) return messageOutcomeOf(rule, original, decision, true);

  const category = config.categories.get(rule.category) ?? null;
  const rows: CompositionRows = {
    recipient,
    category,
    template: config.templates.get(rule.template) ?? null,
    agent: context.agent,
    fatigue: category ? await fatigueOf(context, category.key) : null,
  };
  try {
    const decided = await decideMessage(tx, { config: deps.config, now: () => now }, request, rows, {
      duplicateOf: original?.id ?? null,
      planned: decision.messages,
    });
    // Later rules of the event count this message (caps, fatigue, budgets), in a dry run too, so
    // it decides as ingest would (docs/events.md "The dry run"); a repeat's original is stored already.
    if (!original) {
      decision.messages.push(decided.row);
      if (decided.fatigue) decision.fatigue.set(decided.row.category, decided.fatigue);
    }
    return messageOutcomeOf(rule, decided.row, decision, !dryRun);
  } catch (error) {
    return outcomeOfMissingReference(rule.key, error);
  }
}

/** The message's outcome; a stored queued message is also a delivery to enqueue after the commit. */
function messageOutcomeOf(
  rule: RuleRow,
  message: MessageRow,
  decision: EventDecision,
  stored: boolean,
): EventRuleOutcome {
  if (stored && message.status === "queued")
    decision.followUps.deliveries.push({
      messageId: message.id,
      generation: message.generation,
      sendAt: message.send_at,
    });
  return outcomeOfMessage(rule.key, message, stored);
}

/** The category's fatigue state: as an earlier message of this event left it, else as stored. */
async function fatigueOf(context: RuleContext, category: string): Promise<FatigueStateRow | null> {
  const { recipient, decision, now } = context;
  const planned = decision.fatigue.get(category);
  if (!planned) return context.reads.fatigue(recipient.id, category);
  return {
    recipient_id: recipient.id,
    category,
    sent_since_engagement: planned.sentSinceEngagement,
    paused_until: planned.pausedUntil,
    probe_message_id: planned.probeMessageId,
    probe_sent_at: planned.probeSentAt,
    updated_at: now,
  };
}

/** How rule matching sees the reporting agent as it is now (agents are soft-deleted; a row gone is deleted all the more). */
function matchAgentOf(key: string, row: AgentRow | null): MatchAgent {
  if (!row) return { key, enabled: false, deleted: true, categories: [] };
  return {
    key,
    enabled: row.enabled,
    deleted: row.deleted_at !== null,
    categories: Array.isArray(row.categories) ? (row.categories as string[]) : null,
  };
}

const keySets = new WeakMap<ReadonlyMap<string, unknown>, ReadonlySet<string>>();
function keySet(map: ReadonlyMap<string, unknown>): ReadonlySet<string> {
  let set = keySets.get(map);
  if (!set) keySets.set(map, (set = new Set(map.keys())));
  return set;
}
