import { createHmac } from "node:crypto";

// An endpoint's signing secret (docs/webhooks.md "Secrets"): derived, never stored. svc keeps a
// random salt per endpoint (a new one on each rotation) and recomputes the secret from
// SVC_SECRET_KEY whenever it signs, as it does for link tokens: a database copy alone cannot sign.

/** `whsec_` and 43 characters: base64url(HMAC-SHA256(secret key, "webhook-secret:<endpoint>:<salt>")). */
export function webhookSigningSecret(secretKey: string, endpointId: string, salt: string): string {
  if (!secretKey) throw new Error("webhook secrets need a secret key");
  return `whsec_${createHmac("sha256", secretKey).update(`webhook-secret:${endpointId}:${salt}`).digest("base64url")}`;
}
