import { Prisma } from "../../generated/prisma/client";
import { prismaOf, transactionOf, type Database, type Transaction } from "../../transaction";

// "Allow for this session" grants (docs/hooks.md "Allow for this session"): written by the
// approval that grants them, read by the hook before it asks anybody, ended by the session's end or
// their deadline. Only their owner (the agent, or `key:<id>` for a key bound to none) reads them.

export type SessionGrantRow = Prisma.SessionGrantModel;

export interface NewSessionGrant {
  id: string;
  owner: string;
  sessionId: string;
  rules: string[];
  approvalId: string;
  grantedBy: string;
  now: Date;
  expiresAt: Date;
}

export function insertSessionGrant(tx: Transaction, grant: NewSessionGrant): Promise<SessionGrantRow> {
  return transactionOf(tx).sessionGrant.create({
    data: {
      id: grant.id,
      owner: grant.owner,
      session_id: grant.sessionId,
      rules: grant.rules,
      approval_id: grant.approvalId,
      granted_by: grant.grantedBy,
      created_at: grant.now,
      expires_at: grant.expiresAt,
    },
  });
}

/** The owner's grants for a session that have not run out, oldest first. */
export function activeSessionGrants(
  db: Database,
  owner: string,
  sessionId: string,
  now: Date,
): Promise<SessionGrantRow[]> {
  return prismaOf(db).sessionGrant.findMany({
    where: { owner, session_id: sessionId, expires_at: { gt: now } },
    orderBy: { id: "asc" },
  });
}

/** The session ended: its grants go; returns how many. */
export async function endSessionGrants(db: Database, owner: string, sessionId: string): Promise<number> {
  const { count } = await prismaOf(db).sessionGrant.deleteMany({ where: { owner, session_id: sessionId } });
  return count;
}

/** Grants past their deadline, at most `limit` of them (the expiry sweep); returns how many went. */
export function deleteExpiredSessionGrants(db: Database, now: Date, limit: number): Promise<number> {
  return prismaOf(db).$executeRaw(Prisma.sql`
    DELETE FROM session_grants
     WHERE id IN (SELECT id FROM session_grants WHERE expires_at <= ${now} LIMIT ${limit} FOR UPDATE SKIP LOCKED)`);
}
