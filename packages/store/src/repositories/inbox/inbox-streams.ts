import { Prisma } from "../../generated/prisma/client";
import type { InboxItemRow } from "./inbox-items";
import { prismaOf, type Database } from "../../transaction";

// What the open streams of an API process read (docs/inbox.md "The stream"): for many people at
// once, one statement for their heads (token nonce, counts, latest position) and one for their
// changes after a position. The engine's inbox streams call these for every person with news.

export interface InboxStreamHead {
  recipient_id: string;
  /** The person's preference-token nonce (their inbox tokens are bound to it); null once erased. */
  nonce: string | null;
  unread: number;
  unseen: number;
  total: number;
  /** The person's latest position (0 without items). */
  last_seq: bigint;
}

export async function readInboxStreamHeads(
  db: Database,
  recipientIds: readonly string[],
): Promise<InboxStreamHead[]> {
  if (recipientIds.length === 0) return [];
  return prismaOf(db).$queryRaw<InboxStreamHead[]>(Prisma.sql`
    SELECT p.id AS recipient_id, t.nonce, c.unread, c.unseen, c.total, COALESCE(h.last_seq, 0)::bigint AS last_seq
      FROM unnest(${[...recipientIds]}::text[]) AS p(id)
      LEFT JOIN preference_tokens t ON t.recipient_id = p.id
      CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE read_at IS NULL)::int AS unread,
               count(*) FILTER (WHERE seen_at IS NULL)::int AS unseen,
               count(*)::int AS total
          FROM inbox_items WHERE recipient_id = p.id AND archived_at IS NULL) c
      CROSS JOIN LATERAL (SELECT max(seq) AS last_seq FROM inbox_items WHERE recipient_id = p.id) h`);
}

/** Each person's items changed after their position, oldest change first, at most `limit` each. */
export async function readInboxChangesAfter(
  db: Database,
  positions: readonly { recipientId: string; after: bigint }[],
  limit: number,
): Promise<InboxItemRow[]> {
  if (positions.length === 0) return [];
  return prismaOf(db).$queryRaw<InboxItemRow[]>(Prisma.sql`
    SELECT i.*
      FROM unnest(${positions.map((p) => p.recipientId)}::text[], ${positions.map((p) => p.after.toString())}::text[]::bigint[]) AS p(id, after)
      CROSS JOIN LATERAL (
        SELECT * FROM inbox_items i WHERE i.recipient_id = p.id AND i.seq > p.after ORDER BY i.seq LIMIT ${limit}) i
     ORDER BY i.recipient_id, i.seq`);
}

/** Who an inbox token names: the person, their external id and their preference-token nonce. */
export async function findInboxTokenHolder(
  db: Database,
  recipientId: string,
): Promise<{ recipient_id: string; external_id: string; nonce: string } | null> {
  const [row] = await prismaOf(db).$queryRaw<
    { recipient_id: string; external_id: string; nonce: string }[]
  >(Prisma.sql`
    SELECT r.id AS recipient_id, r.external_id, t.nonce
      FROM recipients r JOIN preference_tokens t ON t.recipient_id = r.id
     WHERE r.id = ${recipientId}`);
  return row ?? null;
}
