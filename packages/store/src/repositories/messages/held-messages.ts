import { Prisma } from "../../generated/prisma/client";
import type { MessageRow } from "../../rows";
import { prismaOf, type Database } from "../../transaction";

// Messages held for a person's approval (`pending_approval`, docs/approvals.md "Held messages"):
// every decision is compare-and-set on that status, so of two reviewers exactly one decides.

/** An agent's messages still waiting (not past their approval deadline): how many, and the nearest deadline. */
export async function heldMessagesOf(
  db: Database,
  agentKey: string,
  now: Date,
): Promise<{ count: number; nextDeadline: Date | null }> {
  const where = {
    agent_key: agentKey,
    status: "pending_approval" as const,
    approval_expires_at: { gt: now },
  };
  const [count, next] = await Promise.all([
    prismaOf(db).message.count({ where }),
    prismaOf(db).message.findFirst({
      where,
      orderBy: { approval_expires_at: "asc" },
      select: { approval_expires_at: true },
    }),
  ]);
  return { count, nextDeadline: next?.approval_expires_at ?? null };
}

export interface ApprovedMessageWrite {
  /** What the policy re-check decided (`queued`, or `suppressed`/`failed` with a reason). */
  status: MessageRow["status"];
  statusReason: string | null;
  sendAt: Date;
  importance: MessageRow["importance"];
  channels: string[];
  reviewedBy: string;
  reviewedByKeyId: string | null;
  now: Date;
}

/** `pending_approval` (before its deadline) → approved and re-checked, next generation; null when it was not waiting. */
export async function approveHeldMessage(
  db: Database,
  id: string,
  write: ApprovedMessageWrite,
): Promise<MessageRow | null> {
  const rows = await prismaOf(db).message.updateManyAndReturn({
    where: { id, status: "pending_approval", approval_expires_at: { gt: write.now } },
    data: {
      status: write.status,
      status_reason: write.statusReason,
      send_at: write.sendAt,
      importance: write.importance,
      channels: write.channels,
      reviewed_by: write.reviewedBy,
      reviewed_by_key_id: write.reviewedByKeyId,
      reviewed_at: write.now,
      generation: { increment: 1 },
      updated_at: write.now,
    },
  });
  return rows[0] ?? null;
}

/** `pending_approval` (before its deadline) → `cancelled` with the reason; null when it was not waiting. */
export async function rejectHeldMessage(
  db: Database,
  id: string,
  write: { reason: string; reviewedBy: string; reviewedByKeyId: string | null; now: Date },
): Promise<MessageRow | null> {
  const rows = await prismaOf(db).message.updateManyAndReturn({
    where: { id, status: "pending_approval", approval_expires_at: { gt: write.now } },
    data: {
      status: "cancelled",
      status_reason: write.reason,
      reviewed_by: write.reviewedBy,
      reviewed_by_key_id: write.reviewedByKeyId,
      reviewed_at: write.now,
      updated_at: write.now,
    },
  });
  return rows[0] ?? null;
}

/**
 * Held messages past their approval deadline → `suppressed` with `reason` (the oldest `limit`, or
 * only `id`); returns the rows it changed. Rows being decided right now are skipped.
 */
export function expireHeldMessages(
  db: Database,
  now: Date,
  reason: string,
  options: { id?: string; limit: number },
): Promise<MessageRow[]> {
  const only = options.id ? Prisma.sql`AND id = ${options.id}` : Prisma.empty;
  return prismaOf(db).$queryRaw<MessageRow[]>(Prisma.sql`
    UPDATE messages SET status = 'suppressed', status_reason = ${reason}, updated_at = ${now}
    WHERE id IN (SELECT id FROM messages WHERE status = 'pending_approval' AND approval_expires_at <= ${now} ${only}
                 ORDER BY approval_expires_at LIMIT ${options.limit} FOR UPDATE SKIP LOCKED)
      AND status = 'pending_approval'
    RETURNING *`);
}
