import { Prisma, type MessageStatus } from "../../generated/prisma/client";
import type { PrismaClientOrTransaction } from "../../transaction";

// A broadcast's messages: counted per status for its progress, cancelled together with it.

/** `queued` → `cancelled` with `reason` for every message of the broadcast; how many changed. */
export async function cancelQueuedBroadcastMessages(
  db: PrismaClientOrTransaction,
  broadcastId: string,
  reason: string,
  now: Date,
): Promise<number> {
  const { count } = await db.message.updateMany({
    where: { broadcast_id: broadcastId, status: "queued" },
    data: { status: "cancelled", status_reason: reason, updated_at: now },
  });
  return count;
}

/** Messages of the broadcast per status (the (broadcast_id, status) index answers it). */
export async function countBroadcastMessagesByStatus(
  db: PrismaClientOrTransaction,
  broadcastId: string,
): Promise<Partial<Record<MessageStatus, number>>> {
  const rows = await db.$queryRaw<{ status: MessageStatus; count: number }[]>(Prisma.sql`
    SELECT status::text AS status, count(*)::int AS count FROM messages
    WHERE broadcast_id = ${broadcastId} GROUP BY status`);
  return Object.fromEntries(rows.map((row) => [row.status, row.count]));
}
