import { timingSafeEqual } from "node:crypto";
import { deriveLinkToken } from "./link-tokens";

// Inbox tokens (docs/inbox.md "Tokens"): a person's browser reads their own feed with one. Signed,
// expiring, bound to the person and not stored: `<recipient id>.<expiry, unix seconds>.<mac>`,
// mac = base64url(HMAC-SHA256(SVC_SECRET_KEY, "inbox:<recipient id>:<expiry>:<nonce>")), where
// the nonce is the person's preference-token nonce. Rotating the preference token replaces the
// nonce, and erasure deletes it: every inbox token of the person stops working at once.

export interface InboxTokenClaims {
  recipientId: string;
  /** Unix seconds. */
  expiresAt: number;
}

const TOKEN = /^([A-Za-z0-9_]{1,64})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** The longest inbox token (a bound for request validation). */
export const INBOX_TOKEN_MAX_LENGTH = 64 + 1 + 12 + 1 + 43;

const macOf = (secretKey: string, claims: InboxTokenClaims, nonce: string) =>
  deriveLinkToken(secretKey, "inbox", [claims.recipientId, String(claims.expiresAt)], nonce);

export function mintInboxToken(secretKey: string, claims: InboxTokenClaims, nonce: string): string {
  return `${claims.recipientId}.${claims.expiresAt}.${macOf(secretKey, claims, nonce)}`;
}

/** The claims a token names, unverified (null when it is not shaped like an inbox token). */
export function readInboxToken(token: string): (InboxTokenClaims & { mac: string }) | null {
  const match = TOKEN.exec(token);
  if (!match) return null;
  return { recipientId: match[1]!, expiresAt: Number(match[2]), mac: match[3]! };
}

export type InboxTokenCheck = "valid" | "expired" | "invalid";

/**
 * Checks a token read by readInboxToken against the person's current nonce (null: no token row,
 * e.g. erased). Expiry is checked after the signature, so a forged expiry never reads as "expired".
 */
export function checkInboxToken(
  secretKey: string,
  token: InboxTokenClaims & { mac: string },
  nonce: string | null,
  now: Date,
): InboxTokenCheck {
  if (nonce === null) return "invalid";
  const expected = Buffer.from(macOf(secretKey, token, nonce));
  const given = Buffer.from(token.mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "invalid";
  return token.expiresAt * 1000 <= now.getTime() ? "expired" : "valid";
}
