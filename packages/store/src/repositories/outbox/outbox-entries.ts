import { Prisma } from "../../generated/prisma/client";
import { prismaOf, sqlOf, transactionOf, type Database, type Transaction } from "../../transaction";
import { insertFromJsonSql } from "../json-rows";

// The outbox (docs/outbox.md): entries are written inside the transaction of the change they
// report, and taken by the relay inside its own transaction, which deletes them as it fans them
// out: a crash on either side leaves every entry exactly once in the table or in its effects.

export interface NewOutboxEntry {
  topic: string;
  payload: Prisma.InputJsonObject;
  /** A notice channel (without the Redis prefix) to publish the entry on. */
  notify?: string | null;
}

export interface OutboxEntryRow {
  /** Decimal text of the bigserial id: increasing in commit order within one writer. */
  id: string;
  topic: string;
  payload: Prisma.JsonObject;
  notify: string | null;
  created_at: Date;
}

/** Writes entries under the caller's transaction (the one that makes the change they report). */
export async function insertOutboxEntries(
  tx: Transaction,
  entries: readonly NewOutboxEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  await sqlOf(tx).execute(outboxInsertSql(1), [outboxEntriesJson(entries)]);
}

/**
 * The insert of entries that travel as one JSON parameter ($<param>, outboxEntriesJson): the
 * statement is the same whatever the count (nothing for Prisma to compile per call), and it can
 * ride in the statement of the change it reports (a composed group's messages). Ids follow the
 * entries' order.
 */
export function outboxInsertSql(param: number): string {
  return insertFromJsonSql("outbox", ["topic", "payload", "notify"], param);
}

export function outboxEntriesJson(entries: readonly NewOutboxEntry[]): string {
  return JSON.stringify(
    entries.map((e) => ({ topic: e.topic, payload: e.payload, notify: e.notify ?? null })),
  );
}

/** An entry written once per row a bulk statement changed (see outboxPerRowSql). */
export interface PerRowOutboxEntry {
  topic: string;
  /** Written with each row's id at `subject.id`. */
  payload: Prisma.InputJsonObject;
}

/**
 * The statement part (for a CTE of the caller's statement) that writes `entry` once per row of
 * `rows`, a CTE with an `id` column: a bulk change and its entries in one round trip.
 */
export function outboxPerRowSql(rows: string, entry: PerRowOutboxEntry): Prisma.Sql {
  return Prisma.sql`INSERT INTO outbox (topic, payload, notify)
    SELECT ${entry.topic}, jsonb_set(${JSON.stringify(entry.payload)}::jsonb, '{subject,id}', to_jsonb(r.id)), NULL
      FROM ${Prisma.raw(rows)} r ORDER BY r.id`;
}

/**
 * Takes up to `limit` of the oldest entries no other relay holds, deleting them under the caller's
 * transaction: they are gone once it commits, and back for the next relay if it rolls back.
 */
export async function takeOutboxEntries(tx: Transaction, limit: number): Promise<OutboxEntryRow[]> {
  const rows = await transactionOf(tx).$queryRaw<
    { id: bigint; topic: string; payload: Prisma.JsonObject; notify: string | null; created_at: Date }[]
  >`
    DELETE FROM outbox
     WHERE id IN (SELECT id FROM outbox ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id, topic, payload, notify, created_at`;
  return rows
    .map((row) => ({ ...row, id: row.id.toString() }))
    .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
}

/** How many entries wait, and since when (metrics, readiness). */
export async function outboxBacklog(db: Database): Promise<{ count: number; oldest: Date | null }> {
  const [row] = await prismaOf(db).$queryRaw<{ count: number; oldest: Date | null }[]>`
    SELECT count(*)::int AS count, min(created_at) AS oldest FROM outbox`;
  return { count: row?.count ?? 0, oldest: row?.oldest ?? null };
}
