import { matchRules, toEventRuleOutcome, type EventRuleOutcome, type FatigueState } from "@svc/core";
import { saveFatigue } from "../compose/write-message";
import { decideMessage } from "../compose/compose-message";
import { ComposeReferenceError } from "../compose/compose-errors";
import type { MessageRow, TransactionClient } from "@svc/store";
import type { FollowUps } from "./follow-ups";
import type { IngestDeps, IngestResult } from "./ingest-event";
import { ingestConfig } from "./ingest-config-cache";
import type { IngestSnapshot } from "./ingest-snapshot";
import { ruleComposeRequest } from "./rule-message";
import { writeIngested, type IngestedEvent } from "./write-ingested";

export interface PlannedIngest {
  write: IngestedEvent;
  fatigue: { recipientId: string; category: string; state: FatigueState } | null;
  result: Extract<IngestResult, { status: "processed" }>;
}

/** Plans and writes one event on the fast path; null when it needs the general path. */
export async function ingestSingleCompose(
  tx: TransactionClient,
  deps: IngestDeps,
  snapshot: IngestSnapshot,
): Promise<IngestResult | null> {
  const now = deps.now();
  const planned = await planSingleCompose(tx, deps, snapshot, now);
  if (!planned) return null;
  await writePlanned(tx, now, [planned]);
  return planned.result;
}

/** Writes planned events in one statement, then any fatigue state they leave. */
export async function writePlanned(
  tx: TransactionClient,
  now: Date,
  planned: PlannedIngest[],
): Promise<void> {
  await writeIngested(
    tx,
    now,
    planned.map((p) => p.write),
  );
  for (const { fatigue } of planned) {
    if (fatigue) await saveFatigue(tx, fatigue.recipientId, fatigue.category, fatigue.state, now);
  }
}

/**
 * The common event in three statements after the locks: a known person, no inline profile, no
 * agent, at most one rule firing for a message and none for a digest. Rules, templates and
 * categories come from the per-process copy (current as of the snapshot), the person's rows from
 * the snapshot, then one write. Anything else returns null and takes the general path, which
 * decides the same way with its own reads.
 */
export async function planSingleCompose(
  tx: TransactionClient,
  deps: IngestDeps,
  snapshot: IngestSnapshot,
  now: Date,
): Promise<PlannedIngest | null> {
  const { event, recipient } = snapshot;
  if (!recipient || event.recipient_profile !== null || event.agent_key !== null || snapshot.hasMessages)
    return null;
  const config = await ingestConfig(deps.prisma, tx, snapshot.configVersion);
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
    agent: null,
    existing: { templates: keySet(config.templates), categories: keySet(config.categories) },
  });
  const fired = matches.filter((match) => match.kind === "fire");
  // A second message must count the first in its caps and fatigue: the general path reads them back.
  if (fired.length > 1 || fired.some((match) => match.rule.digest !== null)) return null;

  const outcomes: EventRuleOutcome[] = [];
  const followUps: FollowUps = { deliveries: [], digests: [] };
  const messages: MessageRow[] = [];
  let fatigue: PlannedIngest["fatigue"] = null;
  for (const match of matches) {
    if (match.kind !== "fire") {
      outcomes.push(toEventRuleOutcome(match));
      continue;
    }
    const rule = match.rule;
    const category = config.categories.get(rule.category) ?? null;
    const preloaded = {
      recipient,
      category,
      template: config.templates.get(rule.template) ?? null,
      agent: null,
      fatigue: snapshot.fatigue.find((f) => f.category === rule.category) ?? null,
    };
    try {
      const decided = await decideMessage(
        tx,
        { config: deps.config, now: () => now },
        ruleComposeRequest(event, rule, recipient.id),
        preloaded,
      );
      const { row } = decided;
      messages.push(row);
      fatigue = decided.fatigue
        ? { recipientId: recipient.id, category: row.category, state: decided.fatigue }
        : null;
      const outcome: EventRuleOutcome = {
        rule: rule.key,
        matched: true,
        status: row.status,
        message_id: row.id,
      };
      if (row.status_reason !== null) outcome.reason = row.status_reason;
      outcomes.push(outcome);
      if (row.status === "queued")
        followUps.deliveries.push({ messageId: row.id, generation: row.generation, sendAt: row.send_at });
    } catch (error) {
      // As composeRuleMessage: a category gone since matching is the rule's misconfiguration.
      if (!(error instanceof ComposeReferenceError) || error.reference !== "category") throw error;
      outcomes.push({ rule: rule.key, matched: true, reason: "misconfigured" });
    }
  }
  return {
    write: { eventId: event.id, recipientId: recipient.id, messages, outcomes },
    fatigue,
    result: { status: "processed", outcomes, followUps },
  };
}

const keySets = new WeakMap<ReadonlyMap<string, unknown>, ReadonlySet<string>>();
function keySet(map: ReadonlyMap<string, unknown>): ReadonlySet<string> {
  let set = keySets.get(map);
  if (!set) keySets.set(map, (set = new Set(map.keys())));
  return set;
}
