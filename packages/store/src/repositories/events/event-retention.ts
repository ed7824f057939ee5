import { Prisma } from "../../generated/prisma/client";
import { prismaOf, type Database } from "../../transaction";

// Retention (docs/operations.md "Data retention"): settled events older than the cut-off, at most
// `limit` per statement (their outcomes go with them). An event whose idempotency key is still
// held stays until the key's retention ends, so a replay is still answered from it.

export async function deleteSettledEventsBefore(
  db: Database,
  before: Date,
  now: Date,
  limit: number,
): Promise<number> {
  return prismaOf(db).$executeRaw(Prisma.sql`
    DELETE FROM events WHERE id IN (
      SELECT id FROM events
       WHERE created_at < ${before} AND status <> 'pending'
         AND (idempotency_expires_at IS NULL OR idempotency_expires_at <= ${now})
       ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)`);
}
