import { Prisma, type EngagementType } from "../../generated/prisma/client";
import type { MessageRow } from "../../rows";
import { prismaOf, transactionOf, type Database, type Transaction } from "../../transaction";

// Status changes outside a delivery run: cancel, engagement reports, reopening given-up messages.
// Each is compare-and-set on the status it leaves, and returns what it changed.

/** `queued` → `cancelled` with the reason; false when the message was not queued. */
export async function cancelQueuedMessage(
  db: Database,
  id: string,
  reason: string,
  now: Date,
): Promise<boolean> {
  const { count } = await prismaOf(db).message.updateMany({
    where: { id, status: "queued" },
    data: { status: "cancelled", status_reason: reason, updated_at: now },
  });
  return count === 1;
}

/** Records one engagement report; false when this type was already recorded for the message. */
export async function insertEngagement(
  tx: Transaction,
  report: { messageId: string; type: EngagementType; source: string; at: Date },
): Promise<boolean> {
  const { count } = await transactionOf(tx).engagement.createMany({
    data: [{ message_id: report.messageId, type: report.type, source: report.source, created_at: report.at }],
    skipDuplicates: true,
  });
  return count === 1;
}

/**
 * `delivered` reports for many messages: the ids whose report is new (a repeat, or a message that
 * is gone, records nothing).
 */
export async function insertDeliveredReports(
  tx: Transaction,
  messageIds: readonly string[],
  source: string,
  at: Date,
): Promise<string[]> {
  if (messageIds.length === 0) return [];
  const rows = await transactionOf(tx).$queryRaw<{ message_id: string }[]>(Prisma.sql`
    INSERT INTO engagements (message_id, type, source, created_at)
    SELECT m.id, 'delivered'::"EngagementType", ${source}, ${at}
      FROM messages m WHERE m.id = ANY(${[...messageIds]}::text[])
    ON CONFLICT DO NOTHING
    RETURNING message_id`);
  return rows.map((row) => row.message_id);
}

/**
 * `sent` → `delivered` for each message that is `sent`; returns those changed. A message still
 * `sending` is made `delivered` by its `sent` write, which finds the report (writeSentMessages).
 */
export async function markMessagesDelivered(
  tx: Transaction,
  ids: readonly string[],
  at: Date,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await transactionOf(tx).$queryRaw<{ id: string }[]>(Prisma.sql`
    UPDATE messages SET status = 'delivered', delivered_at = ${at}, updated_at = ${at}
     WHERE id = ANY(${[...ids]}::text[]) AND status = 'sent'
    RETURNING id`);
  return rows.map((row) => row.id);
}

const ENGAGED_AT = { opened: "opened_at", clicked: "clicked_at", converted: "converted_at" } as const;

/** Stamps `opened_at`, `clicked_at` or `converted_at`; returns whose fatigue it ends, and its status. */
export function stampMessageEngagement(
  tx: Transaction,
  id: string,
  type: keyof typeof ENGAGED_AT,
  at: Date,
): Promise<Pick<MessageRow, "recipient_id" | "category" | "status" | "status_reason">> {
  return transactionOf(tx).message.update({
    where: { id },
    data: { [ENGAGED_AT[type]]: at, updated_at: at },
    select: { recipient_id: true, category: true, status: true, status_reason: true },
  });
}

const givenUp = (reasonPrefix: string) =>
  ({ status: "failed", status_reason: { startsWith: reasonPrefix } }) as const;

/** Up to `limit` messages that ended `failed` with a reason starting `reasonPrefix`, oldest id first. */
export function findFailedMessages(
  db: Database,
  reasonPrefix: string,
  limit: number,
): Promise<Pick<MessageRow, "id" | "status_reason">[]> {
  return prismaOf(db).message.findMany({
    where: givenUp(reasonPrefix),
    select: { id: true, status_reason: true },
    orderBy: { id: "asc" },
    take: limit,
  });
}

/** Those of `ids` still failed that way → `queued` under a new generation; returns the reopened rows. */
export function reopenFailedMessages(
  db: Database,
  ids: readonly string[],
  reasonPrefix: string,
  now: Date,
): Promise<Pick<MessageRow, "id" | "generation" | "send_at">[]> {
  return prismaOf(db).message.updateManyAndReturn({
    where: { ...givenUp(reasonPrefix), id: { in: [...ids] } },
    data: {
      status: "queued",
      status_reason: null,
      generation: { increment: 1 },
      lease_until: null,
      updated_at: now,
    },
    select: { id: true, generation: true, send_at: true },
  });
}

/** Undoes a reopen whose delivery job could not be enqueued (still `queued` in that generation). */
export async function refailReopenedMessage(
  db: Database,
  message: { id: string; generation: number; reason: string | null },
  now: Date,
): Promise<void> {
  await prismaOf(db).message.updateMany({
    where: { id: message.id, status: "queued", generation: message.generation },
    data: { status: "failed", status_reason: message.reason, updated_at: now },
  });
}
