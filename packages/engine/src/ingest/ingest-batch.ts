import { $transaction, advisoryLockKey, LockNamespace, type TransactionClient } from "@svc/store";
import { ingestEvent, processEvent, type IngestDeps, type IngestResult } from "./ingest-event";
import { planSingleCompose, writePlanned, type PlannedIngest } from "./ingest-fast-path";
import { loadIngestSnapshots, peekEvents, type EventPeek } from "./ingest-snapshot";

// Several events of different people in one transaction: one peek, one lock statement, one
// snapshot read and one write for all of them, instead of each. Guarantees stay per event: every
// person's locks are held before anything of theirs is read, each event's messages, outcomes and
// status commit together (with the others), and follow-ups are the caller's after the commit.

const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 };

/**
 * Ingests `eventIds` and returns each one's result (an id given twice is ingested once). Events of a person already in the batch, and
 * events whose person appeared since the peek, run one by one after the batch commits.
 */
export async function ingestEvents(deps: IngestDeps, eventIds: string[]): Promise<Map<string, IngestResult>> {
  const results = new Map<string, IngestResult>();
  const unique = [...new Set(eventIds)];
  const peeks = await peekEvents(deps.prisma, unique);
  const batch: [string, EventPeek][] = [];
  const later: string[] = [];
  const people = new Set<string>();
  for (const id of unique) {
    const peek = peeks.get(id);
    if (!peek) results.set(id, { status: "skipped", reason: "not_found" });
    else if (peek.status !== "pending") results.set(id, { status: "skipped", reason: peek.status });
    else if (people.has(peek.recipientExternalId)) later.push(id);
    else {
      people.add(peek.recipientExternalId);
      batch.push([id, peek]);
    }
  }
  if (batch.length > 0) {
    const done = await $transaction(deps.prisma, (tx) => ingestLocked(tx, deps, batch), TRANSACTION_OPTIONS);
    for (const [id, result] of done) {
      if (result === "later") later.push(id);
      else results.set(id, result);
    }
  }
  for (const id of later) results.set(id, await ingestEvent(deps, id));
  return results;
}

async function ingestLocked(
  tx: TransactionClient,
  deps: IngestDeps,
  batch: [string, EventPeek][],
): Promise<Map<string, IngestResult | "later">> {
  await lockInOrder(
    tx,
    batch.map(([, peek]) => peek),
  );
  const snapshots = await loadIngestSnapshots(
    tx,
    batch.map(([id]) => id),
  );
  const now = deps.now();
  const results = new Map<string, IngestResult | "later">();
  const planned: PlannedIngest[] = [];
  for (const [id, peek] of batch) {
    const snapshot = snapshots.get(id);
    if (!snapshot) results.set(id, { status: "skipped", reason: "not_found" });
    else if (snapshot.event.status !== "pending")
      results.set(id, { status: "skipped", reason: snapshot.event.status });
    // Its person's internal id is not locked: the single path takes that lock first.
    else if ((snapshot.recipient?.id ?? null) !== peek.recipientId) results.set(id, "later");
    else {
      const plan = await planSingleCompose(tx, deps, snapshot, now);
      if (plan) {
        planned.push(plan);
        results.set(id, plan.result);
      } else {
        results.set(id, await processEvent(tx, deps, snapshot.event));
      }
    }
  }
  await writePlanned(tx, now, planned);
  return results;
}

/**
 * Every external-id lock, then every internal-id lock, each group in key order: two batches (or
 * a batch and a single ingest, which takes one person's external then internal lock) never wait
 * on each other in a circle. Postgres evaluates the select list left to right.
 */
async function lockInOrder(tx: TransactionClient, peeks: EventPeek[]): Promise<void> {
  const keysOf = (values: string[]) =>
    values
      .map((value) => advisoryLockKey(LockNamespace.recipient, value))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const keys = [
    ...keysOf(peeks.map((p) => p.recipientExternalId)),
    ...keysOf(peeks.flatMap((p) => (p.recipientId ? [p.recipientId] : []))),
  ];
  const list = keys.map((_, i) => `pg_advisory_xact_lock($${i + 1}::bigint)`).join(", ");
  await tx.$executeRawUnsafe(`SELECT ${list}`, ...keys);
}
