import { Prisma, type ApprovalStatus, type Importance } from "../../generated/prisma/client";
import { pageArgs, type PageWindow } from "../paging";
import { prismaOf, transactionOf, type Database, type Transaction } from "../../transaction";

// Approval requests (docs/approvals.md "Approval requests"): an agent asks people to decide on
// an action outside svc. Every status change is compare-and-set on `pending`.

export type ApprovalRequestRow = Prisma.ApprovalRequestModel;

export interface NewApprovalRequest {
  id: string;
  sender: string;
  agentKey: string | null;
  apiKeyId: string;
  title: string;
  body: string;
  reviewers: string[];
  importance: Importance;
  metadata: Record<string, unknown>;
  expiresAt: Date;
  now: Date;
}

export function insertApprovalRequest(
  tx: Transaction,
  request: NewApprovalRequest,
): Promise<ApprovalRequestRow> {
  return transactionOf(tx).approvalRequest.create({
    data: {
      id: request.id,
      sender: request.sender,
      agent_key: request.agentKey,
      api_key_id: request.apiKeyId,
      title: request.title,
      body: request.body,
      reviewers: request.reviewers,
      importance: request.importance,
      metadata: request.metadata as Prisma.InputJsonValue,
      expires_at: request.expiresAt,
      created_at: request.now,
    },
  });
}

export function findApprovalRequest(db: Database, id: string): Promise<ApprovalRequestRow | null> {
  return prismaOf(db).approvalRequest.findUnique({ where: { id } });
}

export interface ApprovalRequestFilters {
  /** Stored status; `expired` also finds `pending` rows past their deadline (they read as expired). */
  status?: ApprovalStatus;
  agentKey?: string;
  /** An agent key's own requests only. */
  onlyAgentKey?: string | null;
}

/** One page of approval requests, newest first; statuses as they read at `now`. */
export function listApprovalRequests(
  db: Database,
  filters: ApprovalRequestFilters,
  window: PageWindow,
  now: Date,
): Promise<ApprovalRequestRow[]> {
  const page = pageArgs(window, "id");
  const where: Prisma.ApprovalRequestWhereInput[] = [page.where];
  if (filters.status === "pending") where.push({ status: "pending", expires_at: { gt: now } });
  else if (filters.status === "expired")
    where.push({ OR: [{ status: "expired" }, { status: "pending", expires_at: { lte: now } }] });
  else if (filters.status !== undefined) where.push({ status: filters.status });
  if (filters.agentKey !== undefined) where.push({ agent_key: filters.agentKey });
  if (filters.onlyAgentKey) where.push({ agent_key: filters.onlyAgentKey });
  return prismaOf(db).approvalRequest.findMany({
    where: { AND: where },
    orderBy: page.orderBy,
    take: page.take,
  });
}

export interface ApprovalDecisionWrite {
  status: "approved" | "rejected";
  decidedBy: string;
  decidedByKeyId: string | null;
  comment: string | null;
  /** What an approval for the rest of a session granted (docs/hooks.md), stored with the decision. */
  sessionGrant?: { session_id: string; rules: string[]; expires_at: string } | null;
  now: Date;
}

/** `pending` and not past its deadline → approved/rejected; the decided row, or null when it was not pending. */
export async function decideApprovalRequest(
  db: Database,
  id: string,
  decision: ApprovalDecisionWrite,
): Promise<ApprovalRequestRow | null> {
  const rows = await prismaOf(db).approvalRequest.updateManyAndReturn({
    where: { id, status: "pending", expires_at: { gt: decision.now } },
    data: {
      status: decision.status,
      decided_by: decision.decidedBy,
      decided_by_key_id: decision.decidedByKeyId,
      comment: decision.comment,
      decided_at: decision.now,
      ...(decision.sessionGrant ? { session_grant: decision.sessionGrant } : {}),
    },
  });
  return rows[0] ?? null;
}

/** `pending` and not past its deadline → `withdrawn` (by its sender); the row, or null when it was not pending. */
export async function withdrawApprovalRequest(
  db: Database,
  id: string,
  now: Date,
): Promise<ApprovalRequestRow | null> {
  const rows = await prismaOf(db).approvalRequest.updateManyAndReturn({
    where: { id, status: "pending", expires_at: { gt: now } },
    data: { status: "withdrawn", decided_at: now },
  });
  return rows[0] ?? null;
}

/**
 * Pending requests past their deadline → `expired`, decided at their deadline (the oldest `limit`,
 * or only `id`); returns the rows it expired. Rows being decided right now are skipped.
 */
export function expireApprovalRequests(
  db: Database,
  now: Date,
  options: { id?: string; limit: number },
): Promise<ApprovalRequestRow[]> {
  const only = options.id ? Prisma.sql`AND id = ${options.id}` : Prisma.empty;
  return prismaOf(db).$queryRaw<ApprovalRequestRow[]>(Prisma.sql`
    UPDATE approval_requests SET status = 'expired', decided_at = expires_at
    WHERE id IN (SELECT id FROM approval_requests WHERE status = 'pending' AND expires_at <= ${now} ${only}
                 ORDER BY expires_at LIMIT ${options.limit} FOR UPDATE SKIP LOCKED)
      AND status = 'pending'
    RETURNING *`);
}

/** Open requests of an agent (pending, not past their deadline): their count and the nearest deadline. */
export async function openApprovalRequestsOf(
  db: Database,
  agentKey: string,
  now: Date,
): Promise<{ count: number; nextDeadline: Date | null }> {
  const where = { agent_key: agentKey, status: "pending" as const, expires_at: { gt: now } };
  const [count, next] = await Promise.all([
    prismaOf(db).approvalRequest.count({ where }),
    prismaOf(db).approvalRequest.findFirst({
      where,
      orderBy: { expires_at: "asc" },
      select: { expires_at: true },
    }),
  ]);
  return { count, nextDeadline: next?.expires_at ?? null };
}
