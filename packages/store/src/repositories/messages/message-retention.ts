import { Prisma } from "../../generated/prisma/client";
import { prismaOf, type Database } from "../../transaction";

// Retention (docs/operations.md "Data retention"): messages in a final status created before the
// cut-off, at most `limit` per statement; their delivery attempts and engagement go with them.
// Messages still moving (queued, sending, held) are never removed.

export async function deleteFinalMessagesBefore(db: Database, before: Date, limit: number): Promise<number> {
  return prismaOf(db).$executeRaw(Prisma.sql`
    DELETE FROM messages WHERE id IN (
      SELECT id FROM messages
       WHERE created_at < ${before} AND status IN ('sent', 'delivered', 'failed', 'suppressed', 'cancelled')
       ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)`);
}
