import { createHash, randomBytes } from "node:crypto";

// API keys look like `svc_<43 base62 chars>` (about 256 bits); only the SHA-256 is stored, with an
// 8-character display prefix (docs/api.md, "Authentication").

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET_LENGTH = 43;
export const API_KEY_PATTERN = /^svc_[0-9A-Za-z]{43}$/;

export function generateApiKeySecret(): string {
  let out = "";
  while (out.length < SECRET_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 62 * 4: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < SECRET_LENGTH) out += BASE62[byte % 62];
    }
  }
  return `svc_${out}`;
}

export const sha256Hex = (value: string): string => createHash("sha256").update(value).digest("hex");

export const apiKeyDisplayPrefix = (secret: string): string => secret.slice(0, 8);
