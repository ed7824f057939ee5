import { matchRules, toEventRuleOutcome, type EventRuleOutcome, type RuleMatch } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import {
  $transaction,
  advisoryLockKey,
  LockNamespace,
  lockRecipient,
  type EventRow,
  type MessageStatus,
  type PrismaClient,
  type RecipientRow,
  type RuleRow,
  type TransactionClient,
} from "@svc/store";
import { ensureRecipient } from "./ensure-recipient";
import { joinDigest } from "./join-digest";
import { loadIngestRules } from "./load-ingest-rules";
import { composeRuleMessage, ruleComposeRequest } from "./rule-message";
import { ingestSingleCompose } from "./ingest-fast-path";
import { loadIngestSnapshot, peekEvent } from "./ingest-snapshot";
import type { FollowUps } from "./follow-ups";

export interface IngestDeps {
  prisma: PrismaClient;
  config: SvcConfig;
  now: () => Date;
}

export type IngestResult =
  | { status: "processed"; outcomes: EventRuleOutcome[]; followUps: FollowUps }
  | { status: "skipped"; reason: "not_found" | "processed" | "failed" };

// Lock waits queue up behind busy recipients; give them room before Prisma gives up.
const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 };

/**
 * The `ingest-event` use case (ARCHITECTURE "How data flows" 2): in one transaction holding the
 * recipient's lock, apply the inline profile, match rules, join digests or compose messages, store
 * the outcomes and mark the event `processed`. Re-running it for an event that moved on does
 * nothing; jobs to enqueue after commit are returned.
 */
export async function ingestEvent(deps: IngestDeps, eventId: string): Promise<IngestResult> {
  const peek = await peekEvent(deps.prisma, eventId);
  if (!peek) return { status: "skipped", reason: "not_found" };
  if (peek.status !== "pending") return { status: "skipped", reason: peek.status };

  return $transaction(
    deps.prisma,
    async (tx) => {
      // The external id first (the person may not exist yet), then the internal id that direct
      // sends lock by, always in this order, so events and direct sends to one person serialise.
      await lockRecipients(
        tx,
        peek.recipientId ? [peek.recipientExternalId, peek.recipientId] : [peek.recipientExternalId],
      );
      // Re-read under the lock: a twin job may have finished this event meanwhile.
      let snapshot = await loadIngestSnapshot(tx, eventId);
      if (!snapshot) return { status: "skipped", reason: "not_found" } as const;
      if (snapshot.event.status !== "pending")
        return { status: "skipped", reason: snapshot.event.status } as const;
      const recipientId = snapshot.recipient?.id ?? null;
      if (recipientId !== null && recipientId !== peek.recipientId) {
        // The person was created (or erased and re-created) since the peek: lock the new id too.
        await lockRecipient(tx, recipientId);
        snapshot = (await loadIngestSnapshot(tx, eventId))!;
      }
      const fast = await ingestSingleCompose(tx, deps, snapshot);
      return fast ?? processEvent(tx, deps, snapshot.event);
    },
    TRANSACTION_OPTIONS,
  );
}

/** Several advisory locks in one round trip, taken left to right (Postgres evaluates the select list in order). */
export async function lockRecipients(tx: TransactionClient, keys: string[]): Promise<void> {
  if (keys.length === 1) return lockRecipient(tx, keys[0]!);
  const list = keys.map((_, i) => `pg_advisory_xact_lock($${i + 1}::bigint)`).join(", ");
  await tx.$executeRawUnsafe(
    `SELECT ${list}`,
    ...keys.map((key) => advisoryLockKey(LockNamespace.recipient, key)),
  );
}

export async function processEvent(
  tx: TransactionClient,
  deps: IngestDeps,
  event: EventRow,
): Promise<IngestResult> {
  const now = deps.now();
  const recipient = await ensureRecipient(tx, event, now);
  const { rules, agent, existing } = await loadIngestRules(tx, event);
  const matches = matchRules({
    event: {
      id: event.id,
      name: event.name,
      created_at: event.created_at,
      data: event.data as Record<string, unknown>,
      source: event.source,
    },
    recipient: { ...recipient, attributes: recipient.attributes as Record<string, unknown> },
    rules,
    agent,
    existing,
  });

  const outcomes: EventRuleOutcome[] = [];
  const followUps: FollowUps = { deliveries: [], digests: [] };
  for (const match of matches) {
    outcomes.push(await outcomeOf(tx, deps, now, event, recipient, match, followUps));
  }

  if (outcomes.length > 0) {
    await tx.eventOutcome.createMany({
      data: outcomes.map((outcome, position) => ({
        event_id: event.id,
        rule_key: outcome.rule,
        position,
        matched: outcome.matched,
        reason: outcome.reason ?? null,
        status: (outcome.status as MessageStatus | undefined) ?? null,
        message_id: outcome.message_id ?? null,
        digest_id: outcome.digest_id ?? null,
      })),
    });
  }
  await tx.event.update({
    where: { id: event.id },
    data: { status: "processed", processed_at: now, recipient_id: recipient.id, attempts: { increment: 1 } },
  });
  return { status: "processed", outcomes, followUps };
}

async function outcomeOf(
  tx: TransactionClient,
  deps: IngestDeps,
  now: Date,
  event: EventRow,
  recipient: RecipientRow,
  match: RuleMatch<RuleRow>,
  followUps: FollowUps,
): Promise<EventRuleOutcome> {
  if (match.kind !== "fire") return toEventRuleOutcome(match);
  const rule = match.rule;
  if (rule.digest !== null) {
    const joined = await joinDigest(tx, { config: deps.config, now }, { rule, event, recipient });
    // A digest key that cannot render for this event is the rule's fault.
    if (!joined.ok) return { rule: rule.key, matched: true, reason: "misconfigured" };
    followUps.digests.push(joined.join);
    return { rule: rule.key, matched: true, reason: "digested", digest_id: joined.join.digestId };
  }
  const { outcome, message } = await composeRuleMessage(
    tx,
    { config: deps.config, now: () => now },
    ruleComposeRequest(event, rule, recipient.id),
  );
  if (message?.status === "queued") {
    followUps.deliveries.push({
      messageId: message.id,
      generation: message.generation,
      sendAt: message.send_at,
    });
  }
  return outcome;
}
