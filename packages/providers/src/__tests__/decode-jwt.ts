// Reads a JWT the way the receiving service would: decoded header and claims, and whether the
// signature holds for the public key the test expects to have signed it.
import { verify } from "node:crypto";

export function decodeJwt(jwt: string, publicKey: Parameters<typeof verify>[2]) {
  const [header, claims, signature] = jwt.split(".");
  return {
    header: JSON.parse(Buffer.from(header ?? "", "base64url").toString()),
    claims: JSON.parse(Buffer.from(claims ?? "", "base64url").toString()),
    valid: verify(
      "sha256",
      Buffer.from(`${header}.${claims}`),
      publicKey,
      Buffer.from(signature ?? "", "base64url"),
    ),
  };
}
