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
  type PrismaClient,
} from "@svc/store";
import { reviewPath, reviewToken } from "../approvals/review-notices";
import type { DeliveryLinkValues } from "./delivery-types";

// `deliveryLinks` (links/link-tokens.ts) for many messages at once: the same tokens and stored
// hashes, in one round trip while every person already has a preference token (two more the
// first time someone does not).

export interface LinkOptions {
  secretKey: string;
  publicUrl: string | null;
}

type LinkMessage = {
  id: string;
  link_nonce: string;
  recipient_id: string;
  content: unknown;
  unsubscribe_token_hash: string | null;
  tracking_token_hash: string | null;
};

/** Whether the stored hashes are not (yet) those of this key: composed without it, or rotated since. */
const hashesToStore = (message: LinkMessage, token: { unsubscribeHash: string; trackingHash: string }) =>
  message.unsubscribe_token_hash !== token.unsubscribeHash ||
  message.tracking_token_hash !== token.trackingHash;

const REVIEW_PLACEHOLDER = linkPlaceholder("review_url");

// Only notifications of held items carry the review placeholder (from `data.review_url`).
const mentionsReviewLink = (message: LinkMessage) =>
  message.content !== null && JSON.stringify(message.content).includes(REVIEW_PLACEHOLDER);

function reviewUrl(options: LinkOptions, link: { id: string; nonce: string } | undefined): string | null {
  if (!link) return null;
  return absoluteLinkUrl(options.publicUrl, reviewPath(reviewToken(options.secretKey, link.id, link.nonce)));
}

export async function batchDeliveryLinks(
  prisma: PrismaClient,
  options: LinkOptions,
  messages: readonly LinkMessage[],
  now: Date,
): Promise<DeliveryLinkValues[]> {
  if (messages.length === 0) return [];
  const tokens = messages.map((m) => messageLinkTokens(options.secretKey, m));
  const recipientIds = [...new Set(messages.map((m) => m.recipient_id))];
  // Composition stored the hashes already; they are written here, before any provider sees the
  // links, only where they are missing or were made with another SVC_SECRET_KEY.
  const nonces = await storeLinkHashesAndReadNonces(
    prisma,
    messages.flatMap((m, i) =>
      hashesToStore(m, tokens[i]!)
        ? [
            {
              messageId: m.id,
              unsubscribeHash: tokens[i]!.unsubscribeHash,
              trackingHash: tokens[i]!.trackingHash,
            },
          ]
        : [],
    ),
    recipientIds,
  );
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
    messages.filter(mentionsReviewLink).map((m) => m.id),
  );
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
      review_url: reviewUrl(options, reviewLinks.get(message.id)),
    };
  });
}
