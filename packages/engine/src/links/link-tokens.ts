import {
  AppError,
  absoluteLinkUrl,
  messageLinkTokens,
  newLinkNonce,
  preferenceToken,
  preferencesPath,
  linkTokenHash,
  unsubscribePath,
  type MessageLinkTokens,
} from "@svc/core";
import {
  findPreferenceTokenNonce,
  insertPreferenceTokenOnce,
  replacePreferenceToken,
  storeMessageTokenHashes,
  type PrismaClientOrTransaction,
} from "@svc/store";

// Link tokens in the database (docs/preferences.md, "Tokens"): nonces and SHA-256 hashes are
// stored, raw tokens never are. The pure derivation lives in @svc/core.

/** The HMAC key for links; `npm start` always has one, so a missing key is an operator error. */
export function requireSecretKey(config: { secrets: { secretKey: string | null } }): string {
  const key = config.secrets.secretKey;
  if (!key) throw new AppError("unavailable", "links are unavailable: SVC_SECRET_KEY is not set");
  return key;
}

/**
 * A message's tokens, with their hashes written to the message unless already there (composition
 * stores them; a changed SVC_SECRET_KEY gives new ones), so `/preferences/<unsubscribe token>` and
 * `/v1/track/<token>` find it. Delivery fills `[[svc:unsubscribe_url]]` only after this.
 */
export async function ensureMessageTokenHashes(
  db: PrismaClientOrTransaction,
  secretKey: string,
  message: { id: string; link_nonce: string },
): Promise<MessageLinkTokens> {
  const tokens = messageLinkTokens(secretKey, message);
  await storeMessageTokenHashes(db, message.id, {
    unsubscribe: tokens.unsubscribeHash,
    tracking: tokens.trackingHash,
  });
  return tokens;
}

/** The person's live preference token, created on first use (a racing creator wins, both agree). */
export async function preferenceTokenFor(
  db: PrismaClientOrTransaction,
  secretKey: string,
  recipientId: string,
  now: Date,
): Promise<string> {
  const existing = await findPreferenceTokenNonce(db, recipientId);
  if (existing !== null) return preferenceToken(secretKey, recipientId, existing);
  const nonce = newLinkNonce();
  const token = preferenceToken(secretKey, recipientId, nonce);
  const stored = await insertPreferenceTokenOnce(db, recipientId, {
    nonce,
    token_hash: linkTokenHash(token),
    created_at: now,
  });
  return preferenceToken(secretKey, recipientId, stored);
}

/** A new nonce replaces the old one: the previous token stops working at once. */
export async function rotatePreferenceToken(
  db: PrismaClientOrTransaction,
  secretKey: string,
  recipientId: string,
  now: Date,
): Promise<string> {
  const nonce = newLinkNonce();
  const token = preferenceToken(secretKey, recipientId, nonce);
  await replacePreferenceToken(db, recipientId, { nonce, token_hash: linkTokenHash(token), created_at: now });
  return token;
}

export interface DeliveryLinks {
  /** For `[[svc:preferences_url]]`; null without `api.public_url`. */
  preferences_url: string | null;
  /** For `[[svc:unsubscribe_url]]` (and a List-Unsubscribe header); null without `api.public_url`. */
  unsubscribe_url: string | null;
  /** The one-click (RFC 8058) POST target; null without `api.public_url`. */
  one_click_url: string | null;
  tracking_token: string;
}

/**
 * One message's links with the lookup hashes stored, the preference URL always included (its
 * token made if missing). The delivery worker uses `batchDeliveryLinks` instead, which makes the
 * preference token only for content that links to the preference page.
 */
export async function deliveryLinks(
  db: PrismaClientOrTransaction,
  options: { secretKey: string; publicUrl: string | null },
  message: { id: string; link_nonce: string; recipient_id: string },
  now: Date,
): Promise<DeliveryLinks> {
  const tokens = await ensureMessageTokenHashes(db, options.secretKey, message);
  const preferences = await preferenceTokenFor(db, options.secretKey, message.recipient_id, now);
  return {
    preferences_url: absoluteLinkUrl(options.publicUrl, preferencesPath(preferences)),
    unsubscribe_url: absoluteLinkUrl(options.publicUrl, preferencesPath(tokens.unsubscribe)),
    one_click_url: absoluteLinkUrl(options.publicUrl, unsubscribePath(tokens.unsubscribe)),
    tracking_token: tokens.tracking,
  };
}
