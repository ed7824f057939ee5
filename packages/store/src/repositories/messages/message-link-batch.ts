import { Prisma } from "../../generated/prisma/client";
import { prismaOf, type Database } from "../../transaction";

// Link token hashes of many messages at delivery (docs/preferences.md "Tokens"): composition
// stores them with the message; delivery writes the ones missing or made with another secret key,
// before any provider sees the links.

export interface MessageLinkHashes {
  messageId: string;
  unsubscribeHash: string;
  trackingHash: string;
}

/**
 * Stores each message's unsubscribe and tracking token hashes where other ones (or none) are
 * stored, and in the same round trip reads the preference-token nonces of `recipientIds` (who has
 * one yet).
 */
export async function storeLinkHashesAndReadNonces(
  db: Database,
  hashes: readonly MessageLinkHashes[],
  recipientIds: readonly string[],
): Promise<{ recipient_id: string; nonce: string }[]> {
  return prismaOf(db).$queryRaw<{ recipient_id: string; nonce: string }[]>(Prisma.sql`
    WITH hashes AS (
      UPDATE messages m SET unsubscribe_token_hash = v.unsubscribe_hash, tracking_token_hash = v.tracking_hash
      FROM unnest(${hashes.map((h) => h.messageId)}::text[], ${hashes.map((h) => h.unsubscribeHash)}::text[], ${hashes.map((h) => h.trackingHash)}::text[])
        AS v(id, unsubscribe_hash, tracking_hash)
      WHERE m.id = v.id AND (m.unsubscribe_token_hash IS DISTINCT FROM v.unsubscribe_hash
                             OR m.tracking_token_hash IS DISTINCT FROM v.tracking_hash)
    )
    SELECT recipient_id, nonce FROM preference_tokens WHERE recipient_id = ANY(${[...recipientIds]}::text[])`);
}
