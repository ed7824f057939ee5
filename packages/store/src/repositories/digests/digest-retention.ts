import { Prisma } from "../../generated/prisma/client";
import { prismaOf, type Database } from "../../transaction";

// Retention (docs/operations.md "Data retention"): closed digests (sent or cancelled) created
// before the cut-off, at most `limit` per statement; their items go with them.

export async function deleteClosedDigestsBefore(db: Database, before: Date, limit: number): Promise<number> {
  return prismaOf(db).$executeRaw(Prisma.sql`
    DELETE FROM digests WHERE id IN (
      SELECT id FROM digests
       WHERE created_at < ${before} AND status IN ('sent', 'cancelled')
       ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)`);
}
