import { Prisma, type MessageStatus } from "../../generated/prisma/client";
import { outboxPerRowSql, type PerRowOutboxEntry } from "../outbox";
import { prismaOf, type Database } from "../../transaction";

// A broadcast's messages: counted per status for its progress, cancelled together with it.

/**
 * `queued` → `cancelled` with `reason` for every message of the broadcast, each with its `outbox`
 * entry when given, in one statement; how many changed.
 */
export async function cancelQueuedBroadcastMessages(
  db: Database,
  broadcastId: string,
  reason: string,
  now: Date,
  outbox?: PerRowOutboxEntry,
): Promise<number> {
  const [row] = await prismaOf(db).$queryRaw<{ count: number }[]>(Prisma.sql`
    WITH changed AS (
      UPDATE messages SET status = 'cancelled', status_reason = ${reason}, updated_at = ${now}
      WHERE broadcast_id = ${broadcastId} AND status = 'queued'
      RETURNING id
    )${outbox ? Prisma.sql`, entries AS (${outboxPerRowSql("changed", outbox)})` : Prisma.empty}
    SELECT count(*)::int AS count FROM changed`);
  return row?.count ?? 0;
}

/** Messages of the broadcast per status (the (broadcast_id, status) index answers it). */
export async function countBroadcastMessagesByStatus(
  db: Database,
  broadcastId: string,
): Promise<Partial<Record<MessageStatus, number>>> {
  const rows = await prismaOf(db).$queryRaw<{ status: MessageStatus; count: number }[]>(Prisma.sql`
    SELECT status::text AS status, count(*)::int AS count FROM messages
    WHERE broadcast_id = ${broadcastId} GROUP BY status`);
  return Object.fromEntries(rows.map((row) => [row.status, row.count]));
}
