import { InvalidArgumentError } from "commander";
import { SCOPES, isScope, tryParsePeriod } from "@svc/core";

// Option parsers: a bad value is a usage error (exit 2) reported by commander before anything runs.

const NAME_MAX = 200; // as POST /v1/api-keys
const AGENT_KEY = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
// A date alone means midnight UTC; a time needs its zone, so the instant does not depend on the host.
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?$/i;

export function parseKeyName(value: string): string {
  const name = value.trim();
  if (name.length === 0) throw new InvalidArgumentError("the name must not be empty.");
  if (name.length > NAME_MAX)
    throw new InvalidArgumentError(`the name must be at most ${NAME_MAX} characters.`);
  return name;
}

/** `-s` is repeatable and takes comma-separated lists: `-s events:write,messages:read -s admin`. */
export function collectScopes(value: string, previous: string[] | undefined): string[] {
  const scopes = value
    .split(",")
    .map((scope) => scope.trim())
    .filter(Boolean);
  if (scopes.length === 0) throw new InvalidArgumentError("give at least one scope.");
  const unknown = scopes.filter((scope) => !isScope(scope));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `unknown scope ${unknown.map((s) => `'${s}'`).join(", ")} (one of ${SCOPES.join(", ")}).`,
    );
  }
  return [...new Set([...(previous ?? []), ...scopes])];
}

export function parseAgentKey(value: string): string {
  if (!AGENT_KEY.test(value))
    throw new InvalidArgumentError("not an agent key (letters, digits, '_', '.', '-').");
  return value;
}

/** `--expires P30D` (a period from now, or seconds) or `--expires 2027-01-01T00:00:00Z` (an instant). */
export function parseExpires(value: string, now: Date): Date {
  const seconds = tryParsePeriod(value);
  if (seconds !== null) {
    if (seconds === 0) throw new InvalidArgumentError("the period must be longer than zero.");
    return new Date(now.getTime() + seconds * 1000);
  }
  const text = value.trim();
  const at = ISO_TIMESTAMP.test(text) && fieldsInRange(text) ? new Date(text) : null;
  if (!at || Number.isNaN(at.getTime())) {
    throw new InvalidArgumentError(
      "expected an ISO 8601 date, a time with its zone (2027-01-31T09:00:00Z) or a period (P30D, PT12H).",
    );
  }
  if (at.getTime() <= now.getTime()) throw new InvalidArgumentError("the time must be in the future.");
  return at;
}

// Date would roll 2027-02-30 over into March; a typo must be refused instead.
function fieldsInRange(text: string): boolean {
  const [year, month, day, hour = 0, minute = 0, second = 0] = (text.match(/\d+/g) ?? []).map(Number);
  if (year === undefined || month === undefined || day === undefined) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59
  );
}

export function parseLimit(value: string): number {
  const limit = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 500) {
    throw new InvalidArgumentError("expected a whole number from 1 to 500.");
  }
  return limit;
}
