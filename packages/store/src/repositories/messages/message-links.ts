import { prismaOf, type Database } from "../../transaction";

// Link tokens of messages: only SHA-256 hashes are stored, so `/preferences/<unsubscribe token>`
// and `/v1/track/<token>` find their message (the engine's links/link-tokens.ts).

/** The message whose unsubscribe token hashes to `hash`: its person and category. */
export async function findMessageByUnsubscribeTokenHash(
  db: Database,
  hash: string,
): Promise<{ id: string; recipient_id: string; category: string } | null> {
  return prismaOf(db).message.findUnique({
    where: { unsubscribe_token_hash: hash },
    select: { id: true, recipient_id: true, category: true },
  });
}
