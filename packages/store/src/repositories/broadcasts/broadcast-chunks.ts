import { Prisma } from "../../generated/prisma/client";
import type { BroadcastChunkRow } from "../../rows";
import { outboxPerRowSql, type PerRowOutboxEntry } from "../outbox";
import { prismaOf, type Database } from "../../transaction";

// Chunks: consecutive members one job sends to. `next_seq` and `skipped` move together, so a
// job that resumes (pause, crash, retry) goes on from the last saved point with the right count.

/** Cuts the members into chunks of `size`; nothing when the broadcast already has chunks. */
export async function createBroadcastChunks(db: Database, broadcastId: string, size: number): Promise<void> {
  await prismaOf(db).$executeRaw(Prisma.sql`
    INSERT INTO broadcast_chunks (broadcast_id, position, first_seq, last_seq, next_seq)
    SELECT ${broadcastId}, position, min(seq), max(seq), min(seq)
    FROM (SELECT seq, seq / ${size}::int AS position FROM broadcast_members WHERE broadcast_id = ${broadcastId}) m
    GROUP BY position
    ON CONFLICT DO NOTHING`);
}

export async function hasBroadcastChunks(db: Database, broadcastId: string): Promise<boolean> {
  return (await prismaOf(db).broadcastChunk.count({ where: { broadcast_id: broadcastId }, take: 1 })) > 0;
}

/** Positions of the chunks still to send, in order. */
export async function findOpenChunkPositions(db: Database, broadcastId: string): Promise<number[]> {
  const rows = await prismaOf(db).broadcastChunk.findMany({
    where: { broadcast_id: broadcastId, done: false },
    select: { position: true },
    orderBy: { position: "asc" },
  });
  return rows.map((row) => row.position);
}

export async function findBroadcastChunk(
  db: Database,
  broadcastId: string,
  position: number,
): Promise<BroadcastChunkRow | null> {
  return prismaOf(db).broadcastChunk.findUnique({
    where: { broadcast_id_position: { broadcast_id: broadcastId, position } },
  });
}

/**
 * Saves how far a chunk got. Never moves back: when two jobs overlap on a chunk (a resume while
 * the paused job ends its batch), the one further on wins.
 */
export async function saveChunkProgress(
  db: Database,
  broadcastId: string,
  position: number,
  progress: { nextSeq: number; skipped: number; done: boolean },
): Promise<void> {
  await prismaOf(db).broadcastChunk.updateMany({
    where: { broadcast_id: broadcastId, position, next_seq: { lt: progress.nextSeq } },
    data: { next_seq: progress.nextSeq, skipped: progress.skipped, done: progress.done },
  });
  if (progress.done) {
    await prismaOf(db).broadcastChunk.updateMany({
      where: { broadcast_id: broadcastId, position },
      data: { done: true },
    });
  }
}

/** Members handled so far (sent to or skipped) and those skipped, over every chunk. */
export async function sumChunkProgress(
  db: Database,
  broadcastId: string,
): Promise<{ processed: number; skipped: number }> {
  const [row] = await prismaOf(db).$queryRaw<{ processed: number; skipped: number }[]>(Prisma.sql`
    SELECT coalesce(sum(next_seq - first_seq), 0)::int AS processed, coalesce(sum(skipped), 0)::int AS skipped
    FROM broadcast_chunks WHERE broadcast_id = ${broadcastId}`);
  return row ?? { processed: 0, skipped: 0 };
}

/**
 * `running` → `completed` once no chunk is left, with its `outbox` entry when given, in one
 * statement; false while one is (or it is no longer running).
 */
export async function completeBroadcastIfDone(
  db: Database,
  broadcastId: string,
  now: Date,
  outbox?: PerRowOutboxEntry,
): Promise<boolean> {
  const [row] = await prismaOf(db).$queryRaw<{ count: number }[]>(Prisma.sql`
    WITH done AS (
      UPDATE broadcasts SET status = 'completed', completed_at = ${now}, updated_at = ${now}
      WHERE id = ${broadcastId} AND status = 'running' AND total IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM broadcast_chunks WHERE broadcast_id = ${broadcastId} AND NOT done)
      RETURNING id
    )${outbox ? Prisma.sql`, entries AS (${outboxPerRowSql("done", outbox)})` : Prisma.empty}
    SELECT count(*)::int AS count FROM done`);
  return row?.count === 1;
}

/** Sets the audience size once it is known (a filter's, when it has been evaluated). */
export async function setBroadcastTotal(db: Database, broadcastId: string, total: number): Promise<void> {
  await prismaOf(db).broadcast.update({ where: { id: broadcastId }, data: { total } });
}
