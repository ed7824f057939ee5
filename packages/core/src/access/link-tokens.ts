import { createHmac, randomBytes } from "node:crypto";
import { sha256Hex } from "./api-key-secret";

// Link tokens (docs/preferences.md, "Tokens"): 256 bits =
// base64url(HMAC-SHA256(secret, purpose:ids:nonce)). Only the SHA-256 (hex) of a token is stored,
// for lookup; the service recomputes the token from the stored nonce whenever it hands out a link,
// and a new nonce kills the old token at once.

export const LINK_TOKEN_PURPOSES = ["preferences", "unsubscribe", "tracking", "review", "inbox"] as const;
export type LinkTokenPurpose = (typeof LINK_TOKEN_PURPOSES)[number];

/** 32 bytes in base64url without padding. */
export const LINK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function deriveLinkToken(
  secretKey: string,
  purpose: LinkTokenPurpose,
  ids: readonly string[],
  nonce: string,
): string {
  if (!secretKey) throw new Error("link tokens need a secret key");
  return createHmac("sha256", secretKey)
    .update(`${purpose}:${ids.join(":")}:${nonce}`)
    .digest("base64url");
}

/** What is stored for a token: its SHA-256 in hex. */
export const linkTokenHash = (token: string): string => sha256Hex(token);

/** A fresh random nonce (256 bits, base64url). */
export const newLinkNonce = (): string => randomBytes(32).toString("base64url");

export const isLinkTokenShaped = (value: string): boolean => LINK_TOKEN_PATTERN.test(value);

/** What a link token in a URL becomes where it must not be shown (the console provider's output). */
export const REDACTED_TOKEN = "[token]";
// A token as links carry it: a path segment or query value of exactly 43 base64url characters.
const TOKEN_IN_URL = /(?<=[/=])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;

/**
 * `text` with every link token in a URL (`/preferences/<token>`, `/review/<token>`, ...) replaced
 * by REDACTED_TOKEN, so no live preference, unsubscribe, review or tracking token survives in it.
 */
export function redactLinkTokens(text: string): string {
  return text.replace(TOKEN_IN_URL, REDACTED_TOKEN);
}

export interface MessageLinkTokens {
  unsubscribe: string;
  tracking: string;
  unsubscribeHash: string;
  trackingHash: string;
}

/** A message's unsubscribe and tracking tokens, derived from its id and `link_nonce`. */
export function messageLinkTokens(
  secretKey: string,
  message: { id: string; link_nonce: string },
): MessageLinkTokens {
  const unsubscribe = deriveLinkToken(secretKey, "unsubscribe", [message.id], message.link_nonce);
  const tracking = deriveLinkToken(secretKey, "tracking", [message.id], message.link_nonce);
  return {
    unsubscribe,
    tracking,
    unsubscribeHash: linkTokenHash(unsubscribe),
    trackingHash: linkTokenHash(tracking),
  };
}

/** The person's preference token from the nonce stored in `preference_tokens`. */
export const preferenceToken = (secretKey: string, recipientId: string, nonce: string): string =>
  deriveLinkToken(secretKey, "preferences", [recipientId], nonce);

export const preferencesPath = (token: string): string => `/preferences/${token}`;
export const unsubscribePath = (token: string): string => `/preferences/${token}/unsubscribe`;

/**
 * `${public_url}${path}`, or null without a public URL: a relative link in an e-mail or a push
 * message leads nowhere, so links to people are left out rather than made relative.
 */
export function absoluteLinkUrl(publicUrl: string | null | undefined, path: string): string | null {
  if (!publicUrl) return null;
  return `${publicUrl.replace(/\/+$/, "")}${path}`;
}
