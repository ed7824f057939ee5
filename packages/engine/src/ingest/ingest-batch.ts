import { $transaction, advisoryLockKeySql, LockNamespace, type TransactionClient } from "@svc/store";
import { ingestEvent, processEvent, type IngestDeps, type IngestResult } from "./ingest-event";
import { planSingleCompose, writePlanned, type PlannedIngest } from "./ingest-fast-path";
import { loadIngestSnapshots, type EventPeek } from "./ingest-snapshot";

// Several events of different people in one transaction: one statement that peeks and locks, one
// snapshot read and one write for all of them, instead of each. Guarantees stay per event: every
// person's locks are held before anything of theirs is read, each event's messages, outcomes and
// status commit together (with the others), and follow-ups are the caller's after the commit.

const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 };

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
      const peeks = await lockEvents(tx, unique);
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
    TRANSACTION_OPTIONS,
  );
  if (later.length > 1 && round < MAX_ROUNDS) {
    for (const [id, result] of await ingestEvents(deps, later, round + 1)) results.set(id, result);
  } else {
    for (const id of later) results.set(id, await ingestEvent(deps, id));
  }
  return results;
}

async function ingestLocked(
  tx: TransactionClient,
  deps: IngestDeps,
  batch: [string, EventPeek][],
): Promise<Map<string, IngestResult | "later">> {
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

const EXTERNAL_KEY = advisoryLockKeySql(LockNamespace.recipient, "recipient_external_id");
const INTERNAL_KEY = advisoryLockKeySql(LockNamespace.recipient, "recipient_id");

/**
 * Peeks at the events and, in the same statement, takes the locks of their people (pending
 * events only): every external-id lock, then every internal-id lock, each group in key order, so
 * two batches (or a batch and a single ingest, which takes one person's external then internal
 * lock) never wait on each other in a circle. The aggregate consumes the sorted keys in order.
 * What the events hold is read again after this statement, under the locks.
 */
async function lockEvents(tx: TransactionClient, eventIds: string[]): Promise<Map<string, EventPeek>> {
  const rows = await tx.$queryRawUnsafe<
    {
      id: string;
      status: EventPeek["status"];
      recipient_external_id: string;
      recipient_id: string | null;
      locks: bigint | number;
    }[]
  >(
    `WITH peek AS (
       SELECT e.id, e.status::text AS status, e.recipient_external_id, r.id AS recipient_id
         FROM events e LEFT JOIN recipients r ON r.external_id = e.recipient_external_id
        WHERE e.id = ANY($1::text[])),
     keys AS (
       SELECT DISTINCT 0 AS phase, ${EXTERNAL_KEY} AS k FROM peek WHERE status = 'pending'
       UNION
       SELECT DISTINCT 1 AS phase, ${INTERNAL_KEY} AS k FROM peek WHERE status = 'pending' AND recipient_id IS NOT NULL),
     locked AS (SELECT count(pg_advisory_xact_lock(k)) AS n FROM (SELECT k FROM keys ORDER BY phase, k) sorted)
     SELECT peek.*, locked.n AS locks FROM peek, locked`,
    eventIds,
  );
  return new Map(
    rows.map((row) => [
      row.id,
      { status: row.status, recipientExternalId: row.recipient_external_id, recipientId: row.recipient_id },
    ]),
  );
}
