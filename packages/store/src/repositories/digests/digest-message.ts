import type { PrismaClientOrTransaction } from "../../transaction";
import type { MessageRow } from "../../rows";

// Reads `messages` for closing digests; moves to ../messages/ when that folder lands.

/** What a retried close needs to re-announce a sent digest's message. */
export async function findDigestMessageState(
  db: PrismaClientOrTransaction,
  messageId: string,
): Promise<Pick<MessageRow, "id" | "status" | "generation" | "send_at"> | null> {
  return db.message.findUnique({
    where: { id: messageId },
    select: { id: true, status: true, generation: true, send_at: true },
  });
}
