import { Prisma } from "../../generated/prisma/client";
import { prismaOf, transactionOf, type Database, type Transaction } from "../../transaction";

// Review links (docs/approvals.md "Review links"): one per reviewer and held item, 256-bit tokens
// derived from the link's id and nonce; only the token's SHA-256 is stored.

export type ReviewLinkRow = Prisma.ReviewLinkModel;

export interface NewReviewLink {
  id: string;
  tokenHash: string;
  nonce: string;
  messageId: string | null;
  approvalId: string | null;
  reviewer: string;
  expiresAt: Date;
}

export async function insertReviewLinks(
  tx: Transaction,
  links: readonly NewReviewLink[],
  now: Date,
): Promise<void> {
  if (links.length === 0) return;
  await transactionOf(tx).reviewLink.createMany({
    data: links.map((link) => ({
      id: link.id,
      token_hash: link.tokenHash,
      nonce: link.nonce,
      message_id: link.messageId,
      approval_id: link.approvalId,
      reviewer: link.reviewer,
      expires_at: link.expiresAt,
      created_at: now,
    })),
  });
}

export function findReviewLinkByTokenHash(db: Database, tokenHash: string): Promise<ReviewLinkRow | null> {
  return prismaOf(db).reviewLink.findUnique({ where: { token_hash: tokenHash } });
}

/**
 * The review link each notification message carries: the message's event is the
 * `svc.approval_requested` event of one held item and one reviewer (its recipient), and the link is
 * that reviewer's link to that item. Messages that are no such notification are absent.
 */
export async function reviewLinksOfNotifications(
  db: Database,
  messageIds: readonly string[],
): Promise<Map<string, { id: string; nonce: string }>> {
  if (messageIds.length === 0) return new Map();
  const rows = await prismaOf(db).$queryRaw<{ message_id: string; id: string; nonce: string }[]>(Prisma.sql`
    SELECT m.id AS message_id, rl.id, rl.nonce
      FROM messages m
      JOIN events e ON e.id = m.event_id AND e.source = 'svc'
      JOIN review_links rl ON rl.reviewer = e.recipient_external_id
       AND (rl.message_id = e.data->>'message_id' OR rl.approval_id = e.data->>'approval_id')
     WHERE m.id = ANY(${[...messageIds]}::text[])`);
  return new Map(rows.map((row) => [row.message_id, { id: row.id, nonce: row.nonce }]));
}
