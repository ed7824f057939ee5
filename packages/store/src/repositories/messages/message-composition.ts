import { Prisma } from "../../generated/prisma/client";
import type { MessageRow } from "../../rows";
import { isUniqueViolation } from "../../rows";
import { insertFromJsonSql, revive } from "../json-rows";
import {
  insertOutboxEntries,
  outboxEntriesJson,
  outboxInsertSql,
  type NewOutboxEntry,
} from "../outbox/outbox-entries";
import { prismaOf, sqlOf, transactionOf, type Database, type Transaction } from "../../transaction";

// What composition reads and writes about messages: the duplicate look-ups, the history that
// caps, cooldowns, budgets and texting caps count, and the decided row itself.

/** The message a dedup key (`evt:…`, `brd:…`, `dig:…`) names, if any. */
export function findMessageByDedupKey(db: Database, dedupKey: string): Promise<MessageRow | null> {
  return prismaOf(db).message.findUnique({ where: { dedup_key: dedupKey } });
}

/** The messages several dedup keys name, by key (keys nobody took are absent). */
export async function findMessagesByDedupKeys(
  db: Database,
  dedupKeys: readonly string[],
): Promise<Map<string, MessageRow>> {
  if (dedupKeys.length === 0) return new Map();
  const rows = await prismaOf(db).message.findMany({ where: { dedup_key: { in: [...dedupKeys] } } });
  return new Map(rows.map((row) => [row.dedup_key!, row]));
}

/** The message a sender stored under an idempotency key, if any. */
export function findMessageByIdempotencyKey(
  db: Database,
  sender: string,
  idempotencyKey: string,
): Promise<MessageRow | null> {
  return prismaOf(db).message.findUnique({
    where: { sender_idempotency_key: { sender, idempotency_key: idempotencyKey } },
  });
}

/** Frees an idempotency key whose retention ran out, so a new message can take it. */
export async function releaseMessageIdempotencyKey(
  db: Database,
  messageId: string,
  idempotencyKey: string,
): Promise<void> {
  await prismaOf(db).message.updateMany({
    where: { id: messageId, idempotency_key: idempotencyKey },
    data: { idempotency_key: null, idempotency_expires_at: null },
  });
}

/** A message that may count against a limit: when it goes out and what it is. */
export type HistoryRow = Pick<
  MessageRow,
  "send_at" | "status" | "category" | "rule" | "agent_key" | "channels"
>;

export interface HistoryQuery {
  recipientId: string;
  /** Messages with `send_at` at or after this count (later ones too: no upper bound). */
  since: Date;
  statuses: readonly MessageRow["status"][];
  /** Any of these selects a message: its category, its rule, its agent, or a marketing text. */
  category: string;
  rule: string | null;
  agentKey: string | null;
  marketingTexts: { categories: string[]; channels: string[] } | null;
  /** The message being re-checked after approval does not count against itself. */
  excludeMessageId?: string | null;
}

/** One statement for every list the policy counts (see docs/policy.md "Limits"). */
export function messageHistory(tx: Transaction, query: HistoryQuery): Promise<HistoryRow[]> {
  const or: Prisma.MessageWhereInput[] = [{ category: query.category }];
  if (query.rule !== null) or.push({ rule: query.rule });
  if (query.agentKey !== null) or.push({ agent_key: query.agentKey });
  if (query.marketingTexts)
    or.push({
      category: { in: query.marketingTexts.categories },
      channels: { hasSome: query.marketingTexts.channels },
    });
  return transactionOf(tx).message.findMany({
    where: {
      recipient_id: query.recipientId,
      send_at: { gte: query.since },
      status: { in: [...query.statuses] },
      OR: or,
      ...(query.excludeMessageId ? { id: { not: query.excludeMessageId } } : {}),
    },
    select: { send_at: true, status: true, category: true, rule: true, agent_key: true, channels: true },
  });
}

/**
 * For a group composed at once: every message of these people at or after `since` in one of
 * `statuses`, with its person, a superset of what each person's `messageHistory` selects (the
 * caller cuts each person's rows with the same selection, compose/policy-history.ts).
 */
export async function messageHistoryOfPeople(
  tx: Transaction,
  read: { recipientIds: readonly string[]; since: Date; statuses: readonly MessageRow["status"][] },
): Promise<(HistoryRow & { recipient_id: string })[]> {
  // Raw, as JSON (the same rows whichever kind of transaction runs it, sqlOf).
  const [row] = await sqlOf(tx).query<{ rows: Record<string, unknown>[] }>(MESSAGE_HISTORY_OF_PEOPLE_SQL, [
    [...read.recipientIds],
    read.since.toISOString(),
    [...read.statuses],
  ]);
  return row!.rows.map((r) => revive<HistoryRow & { recipient_id: string }>(r, ["send_at"]));
}

const MESSAGE_HISTORY_OF_PEOPLE_SQL = `SELECT coalesce(json_agg(json_build_object(
    'recipient_id', recipient_id, 'send_at', send_at, 'status', status, 'category', category,
    'rule', rule, 'agent_key', agent_key, 'channels', channels)), '[]') AS rows
  FROM messages
 WHERE recipient_id = ANY($1::text[]) AND send_at >= $2::timestamptz AND status::text = ANY($3::text[])`;

const jsonOrDbNull = (value: Prisma.JsonValue) =>
  value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue);

const createData = (row: MessageRow) => ({
  ...row,
  content: jsonOrDbNull(row.content),
  data: (row.data ?? {}) as Prisma.InputJsonValue,
  screening: jsonOrDbNull(row.screening),
});

export function insertMessage(tx: Transaction, row: MessageRow): Promise<MessageRow> {
  return transactionOf(tx).message.create({ data: createData(row) });
}

/**
 * Inserts composed rows in one statement; returns the stored rows in the order given. No row may
 * carry an idempotency key (those span people, so one can be taken concurrently); a dedup key
 * belongs to one person, so under that person's lock a key the caller found free stays free.
 */
export async function insertComposedMessages(
  tx: Transaction,
  rows: readonly MessageRow[],
  /** Outbox entries that report these messages, written in the same statement. */
  outbox: readonly NewOutboxEntry[] = [],
): Promise<MessageRow[]> {
  if (rows.length === 0) {
    await insertOutboxEntries(tx, outbox);
    return [];
  }
  if (rows.some((row) => row.idempotency_key))
    throw new Error("insertComposedMessages: a row carries an idempotency key");
  // Every column travels (composition builds whole rows), so the rows given are the rows stored,
  // as ingest writes its messages (events/event-writes.ts).
  const messages = insertFromJsonSql("messages", Object.keys(rows[0]!), 1);
  if (outbox.length === 0) await sqlOf(tx).execute(messages, [JSON.stringify(rows)]);
  else
    await sqlOf(tx).execute(`WITH composed AS (${messages}) ${outboxInsertSql(2)}`, [
      JSON.stringify(rows),
      outboxEntriesJson(outbox),
    ]);
  return [...rows];
}

/**
 * Inserts the row unless a unique key (dedup or idempotency) is taken; then the transaction goes on
 * (a unique violation aborts a Postgres transaction, hence the savepoint) and null is returned.
 */
export async function insertMessageUnlessTaken(tx: Transaction, row: MessageRow): Promise<MessageRow | null> {
  // Without a dedup or idempotency key nothing can be taken (ids and token hashes are random): no
  // savepoint, two round trips fewer.
  if (!row.dedup_key && !row.idempotency_key) return insertMessage(tx, row);
  await transactionOf(tx).$executeRawUnsafe("SAVEPOINT compose_insert");
  try {
    const message = await insertMessage(tx, row);
    await transactionOf(tx).$executeRawUnsafe("RELEASE SAVEPOINT compose_insert");
    return message;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await transactionOf(tx).$executeRawUnsafe("ROLLBACK TO SAVEPOINT compose_insert");
    return null;
  }
}
