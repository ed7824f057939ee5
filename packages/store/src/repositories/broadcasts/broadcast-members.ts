import { Prisma } from "../../generated/prisma/client";
import { advisoryXactLock, LockNamespace } from "../../locks";
import { prismaOf, type Database, type Transaction } from "../../transaction";

// The audience as rows, numbered from 0 in the order given (a list) or found (a filter), so
// chunks are ranges of `seq` and nobody holds the whole audience in memory.

/** Appends external ids from `firstSeq` on; one statement however many. */
export async function insertBroadcastMembers(
  db: Database,
  broadcastId: string,
  firstSeq: number,
  externalIds: readonly string[],
): Promise<void> {
  if (externalIds.length === 0) return;
  await prismaOf(db).$executeRaw(Prisma.sql`
    INSERT INTO broadcast_members (broadcast_id, seq, external_id)
    SELECT ${broadcastId}, ${firstSeq} + ord - 1, external_id
    FROM unnest(${externalIds as string[]}::text[]) WITH ORDINALITY AS m(external_id, ord)`);
}

export async function deleteBroadcastMembers(db: Database, broadcastId: string): Promise<void> {
  await prismaOf(db).broadcastMember.deleteMany({ where: { broadcast_id: broadcastId } });
}

export async function countBroadcastMembers(db: Database, broadcastId: string): Promise<number> {
  return prismaOf(db).broadcastMember.count({ where: { broadcast_id: broadcastId } });
}

export interface MemberToSend {
  seq: number;
  external_id: string;
  /** Null when no recipient has this external id (the member is skipped). */
  recipient_id: string | null;
}

/** Members `fromSeq`..`toSeq` in order, at most `limit`, with the recipient each names. */
export async function findMembersToSend(
  db: Database,
  broadcastId: string,
  range: { fromSeq: number; toSeq: number; limit: number },
): Promise<MemberToSend[]> {
  return prismaOf(db).$queryRaw<MemberToSend[]>(Prisma.sql`
    SELECT m.seq, m.external_id, r.id AS recipient_id
    FROM broadcast_members m LEFT JOIN recipients r ON r.external_id = m.external_id
    WHERE m.broadcast_id = ${broadcastId} AND m.seq BETWEEN ${range.fromSeq} AND ${range.toSeq}
    ORDER BY m.seq
    LIMIT ${range.limit}`);
}

/** One planner at a time fixes a broadcast's audience (held until the transaction ends). */
export function lockBroadcastPlan(tx: Transaction, broadcastId: string): Promise<void> {
  return advisoryXactLock(tx, LockNamespace.broadcastPlan, broadcastId);
}
