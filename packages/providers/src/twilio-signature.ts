// Twilio's request signature (X-Twilio-Signature): base64 HMAC-SHA1 of the full URL followed by
// every POST parameter name and value, sorted by name. The inbound SMS webhook checks it.
import { createHmac, timingSafeEqual } from "node:crypto";

export type TwilioParams = Record<string, string | readonly string[]>;

export function twilioSignature(authToken: string, url: string, params: TwilioParams): string {
  const data = Object.keys(params)
    .sort()
    .map((name) => {
      const value = params[name] ?? "";
      const values = typeof value === "string" ? [value] : [...value].sort();
      return values.map((item) => `${name}${item}`).join("");
    })
    .join("");
  return createHmac("sha1", authToken)
    .update(url + data)
    .digest("base64");
}

export function verifyTwilioSignature(
  authToken: string,
  url: string,
  params: TwilioParams,
  signature: string | null | undefined,
): boolean {
  if (!signature) return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
