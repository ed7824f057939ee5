import { Prisma } from "../../generated/prisma/client";
import type { MessageRow } from "../../rows";
import { nullableJson } from "../json-columns";
import type { ClaimRequest } from "./message-claims";
import { prismaOf, type Database } from "../../transaction";

// Screening of agent messages (docs/screening.md "How it runs"). A message handed to screening
// stays `sending` under a new generation with no lease: that pair (`sending`, `lease_until` NULL)
// means "waiting for its screening job" and nothing else. The screening job claims it with a short
// lease, and leaves it `pending_approval` (held) or `queued` again (to be delivered), each a
// compare-and-set on (id, generation, `sending`).

/** Claimed `sending` rows → waiting for screening (next generation, no lease); returns the new generations. */
export async function handOffForScreening(
  db: Database,
  requests: readonly ClaimRequest[],
  now: Date,
): Promise<ClaimRequest[]> {
  if (requests.length === 0) return [];
  const rows = await prismaOf(db).$queryRaw<{ id: string; generation: number }[]>(Prisma.sql`
    UPDATE messages m SET generation = m.generation + 1, lease_until = NULL, updated_at = ${now}
    FROM unnest(${requests.map((r) => r.messageId)}::text[], ${requests.map((r) => r.generation)}::int[]) AS j(id, generation)
    WHERE m.id = j.id AND m.generation = j.generation AND m.status = 'sending'
    RETURNING m.id, m.generation`);
  return rows.map((row) => ({ messageId: row.id, generation: row.generation }));
}

/**
 * Waiting rows of these generations → leased by this screening job until `leaseUntil` (a lapsed
 * lease is taken over: its worker died). Per request the claimed row, or null (moved on, or another
 * job of the same generation is screening it right now).
 */
export async function claimForScreening(
  db: Database,
  requests: readonly ClaimRequest[],
  now: Date,
  leaseUntil: Date,
): Promise<(MessageRow | null)[]> {
  if (requests.length === 0) return [];
  const rows = await prismaOf(db).$queryRaw<MessageRow[]>(Prisma.sql`
    UPDATE messages m SET lease_until = ${leaseUntil}, updated_at = ${now}
    FROM unnest(${requests.map((r) => r.messageId)}::text[], ${requests.map((r) => r.generation)}::int[]) AS j(id, generation)
    WHERE m.id = j.id AND m.generation = j.generation AND m.status = 'sending'
      AND (m.lease_until IS NULL OR m.lease_until <= ${now})
    RETURNING m.*`);
  const claimed = new Map(rows.map((row) => [row.id, row]));
  return requests.map((r) => {
    const row = claimed.get(r.messageId) ?? null;
    claimed.delete(r.messageId);
    return row;
  });
}

/**
 * Up to `limit` other rows waiting for screening (oldest first), leased to this job like
 * `claimForScreening`: a job fills its batch with them, so screening keeps pace however the jobs
 * were cut. Rows being written right now are skipped; their own jobs later find them taken.
 */
export function claimWaitingForScreening(
  db: Database,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<MessageRow[]> {
  return prismaOf(db).$queryRaw<MessageRow[]>(Prisma.sql`
    UPDATE messages SET lease_until = ${leaseUntil}, updated_at = ${now}
    WHERE id IN (SELECT id FROM messages WHERE status = 'sending' AND lease_until IS NULL
                 ORDER BY updated_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      AND status = 'sending' AND lease_until IS NULL
    RETURNING *`);
}

/** One message `releaseScreenedMessages` puts back for delivery. */
export interface ScreenedRelease extends ClaimRequest {
  importance: MessageRow["importance"];
  /** The verdict to store; null leaves the column as it is (screening was skipped). */
  verdict: unknown;
}

/**
 * Screened (or not screened at all) → `queued` under the next generation, for delivery: every
 * release of a screening job in one statement (the verdict writes are the job's hot path). Returns
 * the released rows under their new generation; a row that moved on meanwhile is left out.
 */
export async function releaseScreenedMessages(
  db: Database,
  releases: readonly ScreenedRelease[],
  now: Date,
): Promise<ClaimRequest[]> {
  if (releases.length === 0) return [];
  const rows = await prismaOf(db).$queryRaw<{ id: string; generation: number }[]>(Prisma.sql`
    UPDATE messages m SET status = 'queued', importance = j.importance::"Importance",
      screening = COALESCE(j.verdict::jsonb, m.screening), lease_until = NULL,
      generation = m.generation + 1, updated_at = ${now}
    FROM unnest(${releases.map((r) => r.messageId)}::text[], ${releases.map((r) => r.generation)}::int[],
                ${releases.map((r) => r.importance)}::text[],
                ${releases.map((r) => (r.verdict == null ? null : JSON.stringify(r.verdict)))}::text[])
      AS j(id, generation, importance, verdict)
    WHERE m.id = j.id AND m.generation = j.generation AND m.status = 'sending'
    RETURNING m.id, m.generation`);
  return rows.map((row) => ({ messageId: row.id, generation: row.generation }));
}

/** Held by screening → `pending_approval` with its reason and review deadline. */
export async function holdScreenedMessage(
  db: Database,
  where: ClaimRequest,
  change: { reason: string; verdict: unknown; approvalExpiresAt: Date; now: Date },
): Promise<MessageRow | null> {
  const rows = await prismaOf(db).message.updateManyAndReturn({
    where: { id: where.messageId, generation: where.generation, status: "sending" },
    data: {
      status: "pending_approval",
      status_reason: change.reason,
      screening: nullableJson(change.verdict),
      approval_expires_at: change.approvalExpiresAt,
      lease_until: null,
      updated_at: change.now,
    },
  });
  return rows[0] ?? null;
}

/** Rows waiting for screening since before `waitingSince` (their job may be lost), oldest first. */
export async function listAwaitingScreening(
  db: Database,
  waitingSince: Date,
  limit: number,
): Promise<ClaimRequest[]> {
  const rows = await prismaOf(db).message.findMany({
    where: { status: "sending", lease_until: null, updated_at: { lt: waitingSince } },
    orderBy: { updated_at: "asc" },
    take: limit,
    select: { id: true, generation: true },
  });
  return rows.map((row) => ({ messageId: row.id, generation: row.generation }));
}
