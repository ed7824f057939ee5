import {
  absoluteLinkUrl,
  linkPlaceholder,
  linkTokenHash,
  messageLinkTokens,
  newLinkNonce,
  preferencesPath,
  preferenceToken,
  unsubscribePath,
} from "@svc/core";
import {
  createPreferenceTokens,
  reviewLinksOfNotifications,
  storeLinkHashesAndReadNonces,
  type RootDatabase,
} from "@svc/store";
import { reviewPath, reviewToken } from "../shared/review-notices";
import type { DeliveryLinkValues } from "../shared/delivery-types";

// The links of a delivery batch (docs/preferences.md "Tokens"): each message's tokens from its
// nonce and SVC_SECRET_KEY, with their lookup hashes stored. A round trip only when a hash must be
// written or the content links to the preference page (one more the first time such a person has
// no preference token).

export interface LinkOptions {
  secretKey: string;
  publicUrl: string | null;
}

type LinkMessage = {
  id: string;
  link_nonce: string;
  recipient_id: string;
  content: unknown;
  /** Placeholders in `data` are filled too (a reviewer's notice carries `review_url` there). */
  data?: unknown;
  unsubscribe_token_hash: string | null;
  tracking_token_hash: string | null;
};

/** Whether the stored hashes are not (yet) those of this key: composed without it, or rotated since. */
const hashesToStore = (message: LinkMessage, token: { unsubscribeHash: string; trackingHash: string }) =>
  message.unsubscribe_token_hash !== token.unsubscribeHash ||
  message.tracking_token_hash !== token.trackingHash;

const REVIEW_PLACEHOLDER = linkPlaceholder("review_url");
const PREFERENCES_PLACEHOLDER = linkPlaceholder("preferences_url");

/** The link placeholders the stored content and data hold (only notifications of held items carry the review one). */
function placeholdersOf(message: LinkMessage): { review: boolean; preferences: boolean } {
  const data = message.data ?? null;
  if (message.content === null && data === null) return { review: false, preferences: false };
  const text = JSON.stringify(message.content) + (data === null ? "" : JSON.stringify(data));
  return { review: text.includes(REVIEW_PLACEHOLDER), preferences: text.includes(PREFERENCES_PLACEHOLDER) };
}

function reviewUrl(options: LinkOptions, link: { id: string; nonce: string } | undefined): string | null {
  if (!link) return null;
  return absoluteLinkUrl(options.publicUrl, reviewPath(reviewToken(options.secretKey, link.id, link.nonce)));
}

export async function batchDeliveryLinks(
  prisma: RootDatabase,
  options: LinkOptions,
  messages: readonly LinkMessage[],
  now: Date,
): Promise<DeliveryLinkValues[]> {
  if (messages.length === 0) return [];
  const tokens = messages.map((m) => messageLinkTokens(options.secretKey, m));
  const placeholders = messages.map(placeholdersOf);
  // A person's preference token is needed only to fill `[[svc:preferences_url]]`.
  const recipientIds = [
    ...new Set(messages.filter((_, i) => placeholders[i]!.preferences).map((m) => m.recipient_id)),
  ];
  // Composition stored the hashes already; they are written here, before any provider sees the
  // links, only where they are missing or were made with another SVC_SECRET_KEY.
  const hashes = messages.flatMap((m, i) => {
    const token = tokens[i]!;
    if (!hashesToStore(m, token)) return [];
    return [{ messageId: m.id, unsubscribeHash: token.unsubscribeHash, trackingHash: token.trackingHash }];
  });
  const nonces =
    hashes.length > 0 || recipientIds.length > 0
      ? await storeLinkHashesAndReadNonces(prisma, hashes, recipientIds)
      : [];
  const nonceOf = new Map(nonces.map((row) => [row.recipient_id, row.nonce]));
  const missing = recipientIds.filter((id) => !nonceOf.has(id));
  if (missing.length > 0) {
    // First link for these people: create their token; a racing creator wins and both read its nonce.
    const fresh = missing.map((recipientId) => {
      const nonce = newLinkNonce();
      return {
        recipientId,
        nonce,
        tokenHash: linkTokenHash(preferenceToken(options.secretKey, recipientId, nonce)),
      };
    });
    for (const row of await createPreferenceTokens(prisma, fresh, now))
      nonceOf.set(row.recipient_id, row.nonce);
  }
  const reviewLinks = await reviewLinksOfNotifications(
    prisma,
    messages.filter((_, i) => placeholders[i]!.review).map((m) => m.id),
  );
  return messages.map((message, i) => {
    // Not linked to, or the person was erased meanwhile (cascade: the re-check stops the message anyway).
    const nonce = placeholders[i]!.preferences ? nonceOf.get(message.recipient_id) : undefined;
    const preferences = nonce ? preferenceToken(options.secretKey, message.recipient_id, nonce) : null;
    const token = tokens[i]!;
    return {
      preferences_url: preferences ? absoluteLinkUrl(options.publicUrl, preferencesPath(preferences)) : null,
      unsubscribe_url: absoluteLinkUrl(options.publicUrl, preferencesPath(token.unsubscribe)),
      one_click_url: absoluteLinkUrl(options.publicUrl, unsubscribePath(token.unsubscribe)),
      tracking_token: token.tracking,
      review_url: reviewUrl(options, reviewLinks.get(message.id)),
    };
  });
}
