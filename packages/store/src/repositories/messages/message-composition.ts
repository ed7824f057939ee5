import { Prisma } from "../../generated/prisma/client";
import type { MessageRow } from "../../rows";
import { isUniqueViolation } from "../../rows";
import type { PrismaClientOrTransaction, TransactionClient } from "../../transaction";

// What composition reads and writes about messages: the duplicate look-ups, the history that
// caps, cooldowns, budgets and texting caps count, and the decided row itself.

/** The message a dedup key (`evt:…`, `brd:…`, `dig:…`) names, if any. */
export function findMessageByDedupKey(
  db: PrismaClientOrTransaction,
  dedupKey: string,
): Promise<MessageRow | null> {
  return db.message.findUnique({ where: { dedup_key: dedupKey } });
}

/** The message a sender stored under an idempotency key, if any. */
export function findMessageByIdempotencyKey(
  db: PrismaClientOrTransaction,
  sender: string,
  idempotencyKey: string,
): Promise<MessageRow | null> {
  return db.message.findUnique({
    where: { sender_idempotency_key: { sender, idempotency_key: idempotencyKey } },
  });
}

/** Frees an idempotency key whose retention ran out, so a new message can take it. */
export async function releaseMessageIdempotencyKey(
  db: PrismaClientOrTransaction,
  messageId: string,
  idempotencyKey: string,
): Promise<void> {
  await db.message.updateMany({
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
export function messageHistory(tx: TransactionClient, query: HistoryQuery): Promise<HistoryRow[]> {
  const or: Prisma.MessageWhereInput[] = [{ category: query.category }];
  if (query.rule !== null) or.push({ rule: query.rule });
  if (query.agentKey !== null) or.push({ agent_key: query.agentKey });
  if (query.marketingTexts)
    or.push({
      category: { in: query.marketingTexts.categories },
      channels: { hasSome: query.marketingTexts.channels },
    });
  return tx.message.findMany({
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

const jsonOrDbNull = (value: Prisma.JsonValue) =>
  value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue);

export function insertMessage(tx: TransactionClient, row: MessageRow): Promise<MessageRow> {
  return tx.message.create({
    data: {
      ...row,
      content: jsonOrDbNull(row.content),
      data: (row.data ?? {}) as Prisma.InputJsonValue,
      screening: jsonOrDbNull(row.screening),
    },
  });
}

/**
 * Inserts the row unless a unique key (dedup or idempotency) is taken; then the transaction goes on
 * (a unique violation aborts a Postgres transaction, hence the savepoint) and null is returned.
 */
export async function insertMessageUnlessTaken(
  tx: TransactionClient,
  row: MessageRow,
): Promise<MessageRow | null> {
  await tx.$executeRawUnsafe("SAVEPOINT compose_insert");
  try {
    const message = await insertMessage(tx, row);
    await tx.$executeRawUnsafe("RELEASE SAVEPOINT compose_insert");
    return message;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await tx.$executeRawUnsafe("ROLLBACK TO SAVEPOINT compose_insert");
    return null;
  }
}
