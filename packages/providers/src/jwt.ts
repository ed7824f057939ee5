// Compact JWS signing with node:crypto for the push providers' bearer tokens: RS256 (Google
// service accounts) and ES256 (APNs), the latter with the raw r||s signature JWS requires.
import { createPrivateKey, sign, type KeyObject } from "node:crypto";

export type JwtAlgorithm = "RS256" | "ES256";

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString("base64url");
}

export function signJwt(
  algorithm: JwtAlgorithm,
  key: KeyObject,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): string {
  const signingInput = `${base64url(JSON.stringify({ alg: algorithm, typ: "JWT", ...header }))}.${base64url(JSON.stringify(claims))}`;
  const signature =
    algorithm === "ES256"
      ? sign("sha256", Buffer.from(signingInput), { key, dsaEncoding: "ieee-p1363" })
      : sign("sha256", Buffer.from(signingInput), key);
  return `${signingInput}.${base64url(signature)}`;
}

/**
 * A PEM private key, or undefined when the text is not one (the caller names the setting). PEM
 * kept in one-line environment variables often carries literal `\n`: read as line breaks.
 */
export function readPrivateKey(pem: string): KeyObject | undefined {
  try {
    return createPrivateKey(pem.includes("\\n") ? pem.replace(/\\n/g, "\n") : pem);
  } catch {
    return undefined;
  }
}
