// What an address must be for its channel to deliver to it (docs/preferences.md "Addresses"):
// an e-mail address is exactly one RFC 5321 mailbox, a phone number reads as E.164 (the one rule
// svc compares numbers by, docs/texting.md "Numbers"), a push subscription
// is JSON with an https endpoint, and no address holds a control character. Checked wherever an
// address is written (API, inline profiles, batches) and again by the SMTP provider before it
// sends, so one stored value can never become several recipients.
import isEmail from "validator/lib/isEmail";
import { toE164 } from "../inbound/phone-number";

/** What kind of value a channel's provider delivers to; `other` has only the common rules. */
export type AddressKind = "email" | "phone" | "webpush" | "other";

/** C0 controls (CR and LF among them), DEL and C1 controls, and UTF-16 halves without a partner. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

// validator.js's isEmail: one address, no display name, a domain with a TLD, the RFC 5321
// lengths (64 for the local part, 254 in all); unquoted or quoted local parts, UTF-8 allowed.
const EMAIL_OPTIONS = {
  allow_display_name: false,
  require_display_name: false,
  allow_utf8_local_part: true,
  require_tld: true,
  allow_ip_domain: false,
  ignore_max_length: false,
  domain_specific_validation: false,
} as const;

export interface AddressRuleOptions {
  /** The push channel's `allow_http_endpoints` (local testing): http:// endpoints too. */
  allowHttpPushEndpoints?: boolean;
}

/** Why `value` is not an address of `kind`, or null when it is one. */
export function addressProblem(
  kind: AddressKind,
  value: string,
  options: AddressRuleOptions = {},
): string | null {
  if (CONTROL.test(value)) return "contains a control character";
  if (LONE_SURROGATE.test(value)) return "contains an unpaired UTF-16 surrogate";
  if (value.trim() === "") return "is empty";
  switch (kind) {
    case "email":
      return isEmailMailbox(value)
        ? null
        : "is not exactly one e-mail address (an RFC 5321 mailbox, no name or list)";
    case "phone":
      return toE164(value) !== null
        ? null
        : "is not a phone number in international form (E.164: + or 00, a country code, at most 15 digits)";
    case "webpush":
      return pushSubscriptionProblem(value, options.allowHttpPushEndpoints === true);
    case "other":
      return null;
  }
}

/** True when `value` is one mailbox and nothing else: no list, no display name, no line break. */
export function isEmailMailbox(value: string): boolean {
  return !CONTROL.test(value) && isEmail(value, EMAIL_OPTIONS);
}

function pushSubscriptionProblem(value: string, allowHttp: boolean): string | null {
  const invalid = "is not a push subscription (JSON with an https endpoint and keys p256dh and auth)";
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return invalid;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return invalid;
  const { endpoint, keys } = parsed as { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } };
  if (typeof endpoint !== "string" || !URL.canParse(endpoint)) return invalid;
  const protocol = new URL(endpoint).protocol;
  if (protocol !== "https:" && !(allowHttp && protocol === "http:")) return invalid;
  if (typeof keys !== "object" || keys === null) return invalid;
  if (typeof keys.p256dh !== "string" || typeof keys.auth !== "string") return invalid;
  return null;
}
