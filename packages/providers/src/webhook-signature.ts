// `Svc-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`, the scheme of
// the webhook provider and of the approval callbacks (Stripe's, so receivers know how to check it).
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "Svc-Signature";
export const SIGNATURE_TOLERANCE_SECONDS = 300;

function hmacHex(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest("hex");
}

/**
 * The header value for a body sent at `timestampSeconds`. Several secrets (a rotation's overlap,
 * docs/webhooks.md "Rotating the secret") give one `v1` each, the first secret's first.
 */
export function signPayload(
  secret: string | readonly string[],
  rawBody: string | Buffer,
  timestampSeconds: number,
): string {
  const secrets = typeof secret === "string" ? [secret] : secret;
  const signatures = secrets.map((s) => `,v1=${hmacHex(s, timestampSeconds, rawBody)}`).join("");
  return `t=${timestampSeconds}${signatures}`;
}

/**
 * True when the header carries a v1 signature of the raw body made with the secret, at most
 * `toleranceSeconds` away from now (replays of old captures fail).
 */
export function verifySignature(
  secret: string,
  rawBody: string | Buffer,
  header: string | null | undefined,
  options: { now: Date; toleranceSeconds?: number },
): boolean {
  if (!header) return false;
  const parts = header.split(",").map((part) => part.trim().split("="));
  const timestampText = parts.find(([key]) => key === "t")?.[1];
  if (timestampText === undefined || !/^\d+$/.test(timestampText)) return false;
  const timestamp = Number(timestampText);
  const tolerance = options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  if (Math.abs(Math.floor(options.now.getTime() / 1000) - timestamp) > tolerance) return false;
  const expected = Buffer.from(hmacHex(secret, timestamp, rawBody), "hex");
  // Several v1 entries let a sender sign with an old and a new secret while rotating.
  return parts
    .filter(([key, value]) => key === "v1" && value !== undefined && /^[0-9a-f]{64}$/.test(value))
    .some(([, value]) => timingSafeEqual(Buffer.from(value as string, "hex"), expected));
}
