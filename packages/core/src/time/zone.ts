// IANA time zones. Fixed offsets ("+05:00") are refused: with IANA names daylight-saving rules
// follow the tz database (docs/configuration.md, "policy").

const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;

export function isValidTimeZone(zone: unknown): zone is string {
  if (typeof zone !== "string" || !ZONE_NAME.test(zone)) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The recipient's zone when it is a valid IANA name, else `policy.default_timezone` (docs/policy.md). */
export function resolveTimeZone(recipientZone: string | null | undefined, defaultZone: string): string {
  return isValidTimeZone(recipientZone) ? recipientZone : defaultZone;
}
