import { AppError, newLinkNonce, preferenceToken, linkTokenHash } from "@svc/core";
import { replacePreferenceToken, type Database } from "@svc/store";

// Link tokens in the database (docs/preferences.md, "Tokens"): nonces and SHA-256 hashes are
// stored, raw tokens never are. The pure derivation lives in @svc/core.

/** The HMAC key for links; `npm start` always has one, so a missing key is an operator error. */
export function requireSecretKey(config: { secrets: { secretKey: string | null } }): string {
  const key = config.secrets.secretKey;
  if (!key) throw new AppError("unavailable", "links are unavailable: SVC_SECRET_KEY is not set");
  return key;
}

/** A new nonce replaces the old one: the previous token stops working at once. */
export async function rotatePreferenceToken(
  db: Database,
  secretKey: string,
  recipientId: string,
  now: Date,
): Promise<string> {
  const nonce = newLinkNonce();
  const token = preferenceToken(secretKey, recipientId, nonce);
  await replacePreferenceToken(db, recipientId, { nonce, token_hash: linkTokenHash(token), created_at: now });
  return token;
}
