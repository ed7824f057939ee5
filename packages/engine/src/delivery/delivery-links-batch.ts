import {
  absoluteLinkUrl,
  linkTokenHash,
  messageLinkTokens,
  newLinkNonce,
  preferencesPath,
  preferenceToken,
  unsubscribePath,
} from "@svc/core";
import { Prisma, type PrismaClient } from "@svc/store";
import type { DeliveryLinkValues } from "./delivery-types";

// `deliveryLinks` (links/link-tokens.ts) for many messages at once: the same tokens and stored
// hashes, in one round trip while every person already has a preference token (two more the
// first time someone does not).

export interface LinkOptions {
  secretKey: string;
  publicUrl: string | null;
}

type LinkMessage = { id: string; link_nonce: string; recipient_id: string };

export async function batchDeliveryLinks(
  prisma: PrismaClient,
  options: LinkOptions,
  messages: readonly LinkMessage[],
  now: Date,
): Promise<DeliveryLinkValues[]> {
  if (messages.length === 0) return [];
  const tokens = messages.map((m) => messageLinkTokens(options.secretKey, m));
  const recipientIds = [...new Set(messages.map((m) => m.recipient_id))];
  // Hashes are written once (the nonce never changes), before any provider sees the links.
  const nonces = await prisma.$queryRaw<{ recipient_id: string; nonce: string }[]>(Prisma.sql`
    WITH hashes AS (
      UPDATE messages m SET unsubscribe_token_hash = v.unsubscribe_hash, tracking_token_hash = v.tracking_hash
      FROM unnest(${messages.map((m) => m.id)}::text[], ${tokens.map((t) => t.unsubscribeHash)}::text[], ${tokens.map((t) => t.trackingHash)}::text[])
        AS v(id, unsubscribe_hash, tracking_hash)
      WHERE m.id = v.id AND (m.unsubscribe_token_hash IS NULL OR m.tracking_token_hash IS NULL)
    )
    SELECT recipient_id, nonce FROM preference_tokens WHERE recipient_id = ANY(${recipientIds}::text[])`);
  const nonceOf = new Map(nonces.map((row) => [row.recipient_id, row.nonce]));
  const missing = recipientIds.filter((id) => !nonceOf.has(id));
  if (missing.length > 0) {
    // First link for these people: create their token; a racing creator wins and both read its nonce.
    const fresh = missing.map((id) => {
      const nonce = newLinkNonce();
      return { id, nonce, hash: linkTokenHash(preferenceToken(options.secretKey, id, nonce)) };
    });
    await prisma.$executeRaw(Prisma.sql`
      INSERT INTO preference_tokens (recipient_id, nonce, token_hash, created_at)
      SELECT id, nonce, hash, ${now} FROM unnest(${fresh.map((f) => f.id)}::text[], ${fresh.map((f) => f.nonce)}::text[], ${fresh.map((f) => f.hash)}::text[]) AS f(id, nonce, hash)
      WHERE EXISTS (SELECT 1 FROM recipients r WHERE r.id = f.id)
      ON CONFLICT DO NOTHING`);
    const stored = await prisma.preferenceToken.findMany({
      where: { recipient_id: { in: missing } },
      select: { recipient_id: true, nonce: true },
    });
    for (const row of stored) nonceOf.set(row.recipient_id, row.nonce);
  }
  return messages.map((message, i) => {
    const nonce = nonceOf.get(message.recipient_id);
    // The person was erased meanwhile (cascade): the re-check stops the message anyway.
    const preferences = nonce ? preferenceToken(options.secretKey, message.recipient_id, nonce) : null;
    const token = tokens[i]!;
    return {
      preferences_url: preferences ? absoluteLinkUrl(options.publicUrl, preferencesPath(preferences)) : null,
      unsubscribe_url: absoluteLinkUrl(options.publicUrl, preferencesPath(token.unsubscribe)),
      one_click_url: absoluteLinkUrl(options.publicUrl, unsubscribePath(token.unsubscribe)),
      tracking_token: token.tracking,
    };
  });
}
