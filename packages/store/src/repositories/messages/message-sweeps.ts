import { Prisma } from "../../generated/prisma/client";
import { outboxPerRowSql, type PerRowOutboxEntry } from "../outbox";
import { prismaOf, type Database } from "../../transaction";

// What the delivery sweeps change (docs/delivery.md "Sweeps"). Each is idempotent and batched.

/**
 * Still `queued` at `expires_at` → `suppressed` with the given reason, each with its `outbox`
 * entry when given, in one statement; returns how many.
 */
export async function expireQueuedMessages(
  db: Database,
  now: Date,
  reason: string,
  outbox?: PerRowOutboxEntry,
): Promise<number> {
  const [row] = await prismaOf(db).$queryRaw<{ count: number }[]>(Prisma.sql`
    WITH changed AS (
      UPDATE messages SET status = 'suppressed', status_reason = ${reason}, updated_at = ${now}
      WHERE status = 'queued' AND expires_at <= ${now}
      RETURNING id
    )${outbox ? Prisma.sql`, entries AS (${outboxPerRowSql("changed", outbox)})` : Prisma.empty}
    SELECT count(*)::int AS count FROM changed`);
  return row?.count ?? 0;
}

export interface BumpedMessage {
  messageId: string;
  generation: number;
}

/** `sending` rows whose lease ran out, moved to their next generation (oldest first, at most `limit`). */
export function bumpLapsedLeases(db: Database, now: Date, limit: number) {
  return bumpStuck(db, Prisma.sql`status = 'sending' AND lease_until < ${now}`, now, limit);
}

/** `queued` rows due before `dueBefore` (their job presumed lost), moved to their next generation. */
export function bumpOverdueQueued(db: Database, dueBefore: Date, now: Date, limit: number) {
  return bumpStuck(db, Prisma.sql`status = 'queued' AND send_at < ${dueBefore}`, now, limit);
}

// One statement: the oldest matching rows, locked (rows a worker is writing right now are
// skipped, the next run sees them), bumped only if they still match, so an older job still in
// flight becomes a no-op at its claim.
async function bumpStuck(
  db: Database,
  stuck: Prisma.Sql,
  now: Date,
  limit: number,
): Promise<BumpedMessage[]> {
  const rows = await prismaOf(db).$queryRaw<{ id: string; generation: number }[]>(Prisma.sql`
    UPDATE messages SET generation = generation + 1, updated_at = ${now}
    WHERE id IN (SELECT id FROM messages WHERE ${stuck} ORDER BY send_at LIMIT ${limit} FOR UPDATE SKIP LOCKED) AND ${stuck}
    RETURNING id, generation`);
  return rows.map((row) => ({ messageId: row.id, generation: row.generation }));
}
