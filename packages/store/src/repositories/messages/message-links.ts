import type { PrismaClientOrTransaction } from "../../transaction";

// Link tokens of messages: only SHA-256 hashes are stored, so `/preferences/<unsubscribe token>`
// and `/v1/track/<token>` find their message (the engine's links/link-tokens.ts).

/**
 * Stores the message's token hashes unless these very ones are stored (composition stores them;
 * another SVC_SECRET_KEY since then gives other ones).
 */
export async function storeMessageTokenHashes(
  db: PrismaClientOrTransaction,
  messageId: string,
  hashes: { unsubscribe: string; tracking: string },
): Promise<void> {
  await db.message.updateMany({
    where: {
      id: messageId,
      OR: [
        { unsubscribe_token_hash: null },
        { unsubscribe_token_hash: { not: hashes.unsubscribe } },
        { tracking_token_hash: null },
        { tracking_token_hash: { not: hashes.tracking } },
      ],
    },
    data: { unsubscribe_token_hash: hashes.unsubscribe, tracking_token_hash: hashes.tracking },
  });
}

/** The message whose unsubscribe token hashes to `hash`: its person and category. */
export async function findMessageByUnsubscribeTokenHash(
  db: PrismaClientOrTransaction,
  hash: string,
): Promise<{ id: string; recipient_id: string; category: string } | null> {
  return db.message.findUnique({
    where: { unsubscribe_token_hash: hash },
    select: { id: true, recipient_id: true, category: true },
  });
}
