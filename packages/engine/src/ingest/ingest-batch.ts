import { newId } from "@svc/core";
import {
  $transaction,
  applyInlineProfiles,
  loadIngestSnapshots,
  lockAndPeekEvents,
  type EventPeek,
  type Transaction,
} from "@svc/store";
import { decideSnapshot, type EventDecision } from "./decide-event";
import { ingestEvent, INGEST_TRANSACTION_OPTIONS } from "./ingest-event";
import type { IngestDeps, IngestResult } from "./ingest-types";
import { processedResult, writeDecisions } from "./write-decisions";
import { recordFinalMessage } from "../metrics/record-metrics";

// Several events of different people in one transaction: one statement that peeks and locks, one
// snapshot read and one write for all of them, instead of each. Guarantees stay per event: every
// person's locks are held before anything of theirs is read, each event's messages, outcomes and
// status commit together (with the others), and follow-ups are the caller's after the commit.

// A person's second event in a batch waits for the next round (a batch holds one event per
// person); after this many rounds the rest run one by one.
const MAX_ROUNDS = 4;

/**
 * Ingests `eventIds` and returns each one's result (an id given twice is ingested once). Events of
 * a person already in the batch, and events whose person appeared since the peek, go into a next
 * batch after this one commits (in order, so a person's events are decided in arrival order).
 */
export async function ingestEvents(
  deps: IngestDeps,
  eventIds: string[],
  round = 1,
): Promise<Map<string, IngestResult>> {
  const unique = [...new Set(eventIds)];
  const later: string[] = [];
  const results = await $transaction(
    deps.prisma,
    async (tx) => {
      const done = new Map<string, IngestResult>();
      const peeks = await lockAndPeekEvents(tx, unique);
      const batch: [string, EventPeek][] = [];
      const people = new Set<string>();
      for (const id of unique) {
        const peek = peeks.get(id);
        if (!peek) done.set(id, { status: "skipped", reason: "not_found" });
        else if (peek.status !== "pending") done.set(id, { status: "skipped", reason: peek.status });
        else if (people.has(peek.recipientExternalId)) later.push(id);
        else {
          people.add(peek.recipientExternalId);
          batch.push([id, peek]);
        }
      }
      if (batch.length === 0) return done;
      for (const [id, result] of await ingestLocked(tx, deps, batch)) {
        if (result === "later") later.push(id);
        else done.set(id, result);
      }
      return done;
    },
    INGEST_TRANSACTION_OPTIONS,
  );
  countComposedFinals(results.values());
  if (later.length > 1 && round < MAX_ROUNDS) {
    for (const [id, result] of await ingestEvents(deps, later, round + 1)) results.set(id, result);
  } else {
    for (const id of later) results.set(id, await ingestEvent(deps, id));
  }
  return results;
}

async function ingestLocked(
  tx: Transaction,
  deps: IngestDeps,
  batch: [string, EventPeek][],
): Promise<Map<string, IngestResult | "later">> {
  const now = deps.now();
  // Inline profiles of the whole batch first, in a few statements (docs/events.md
  // "Recipient"); the snapshot then reads every person as written. Profiles with an
  // address on a text channel are written one by one while deciding (numbers locked, STOP list checked).
  const profiles = await applyInlineProfiles(
    tx,
    batch
      .filter(([, peek]) => peek.hasProfile)
      .map(([id]) => ({ eventId: id, newRecipientId: newId("recipient", now.getTime()) })),
    deps.config.compliance.sms_channels,
    now,
  );
  const snapshots = await loadIngestSnapshots(
    tx,
    batch.map(([id]) => id),
  );
  const createdHere = (peek: EventPeek) => {
    const written = profiles.get(peek.recipientExternalId);
    return peek.recipientId === null && written?.created ? written.recipientId : null;
  };
  const results = new Map<string, IngestResult | "later">();
  const decisions: EventDecision[] = [];
  for (const [id, peek] of batch) {
    const snapshot = snapshots.get(id);
    if (!snapshot) results.set(id, { status: "skipped", reason: "not_found" });
    else if (snapshot.event.status !== "pending")
      results.set(id, { status: "skipped", reason: snapshot.event.status });
    // Its person's internal id is not locked: the single path takes that lock first. A person
    // this batch created is visible to no one else until the commit.
    else if ((snapshot.recipient?.id ?? null) !== (createdHere(peek) ?? peek.recipientId))
      results.set(id, "later");
    else {
      const written = profiles.has(peek.recipientExternalId);
      // A profile written above is not written again while deciding.
      const decidable = written
        ? { ...snapshot, event: { ...snapshot.event, recipient_profile: null } }
        : snapshot;
      const decision = await decideSnapshot(tx, deps, decidable, now);
      decisions.push(decision);
      results.set(id, processedResult(decision));
    }
  }
  await writeDecisions(tx, deps, now, decisions);
  return results;
}

/** Messages that composition already made final (suppressed, failed), counted once committed. */
function countComposedFinals(results: Iterable<IngestResult>): void {
  for (const result of results) {
    if (result.status !== "processed") continue;
    for (const outcome of result.outcomes) {
      if (outcome.status === "suppressed" || outcome.status === "failed")
        recordFinalMessage(outcome.status, outcome.reason ?? null);
    }
  }
}
