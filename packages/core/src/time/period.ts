// Periods (ISO 8601 durations or a number of seconds; docs/policy.md, "Categories") as whole seconds.
// Only fixed-length units are accepted: weeks, days, hours, minutes, seconds. Years and months
// are refused because their length depends on the calendar, so "P1M" would make a rolling cap
// or a delay mean different things in different months. Days are 86400 s (elapsed time, not
// calendar days across DST), which is what caps, cooldowns and delays measure.

const SECONDS = { W: 604_800, D: 86_400, H: 3_600, M: 60, S: 1 } as const;

/** The longest period: what a Postgres `integer` column of seconds holds (about 68 years). */
export const MAX_PERIOD_SECONDS = 2_147_483_647;
export const PERIOD_TOO_LONG = `must be at most ${MAX_PERIOD_SECONDS} seconds (about 68 years)`;

// Years and months are matched only so that they can be refused with a helpful message.
const ISO_PERIOD = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

export class InvalidPeriodError extends RangeError {
  constructor(
    readonly input: unknown,
    readonly why: string,
  ) {
    super(`invalid period ${JSON.stringify(input)}: ${why}`);
    this.name = "InvalidPeriodError";
  }
}

/** `"P1D"` → 86400, `"PT1H30M"` → 5400, `3600` → 3600, `"3600"` → 3600. Throws InvalidPeriodError. */
export function parsePeriod(input: unknown): number {
  const seconds = parseUnbounded(input);
  if (seconds > MAX_PERIOD_SECONDS) throw new InvalidPeriodError(input, PERIOD_TOO_LONG);
  return seconds;
}

/** Whether `input` is a well-formed period only too long to store (for a precise message). */
export function isPeriodTooLong(input: unknown): boolean {
  try {
    return parseUnbounded(input) > MAX_PERIOD_SECONDS;
  } catch {
    return false;
  }
}

/** The message for a period that did not parse: the length limit when that was its fault, else `otherwise`. */
export function invalidPeriodMessage(input: unknown, otherwise: string): string {
  return isPeriodTooLong(input) ? PERIOD_TOO_LONG : otherwise;
}

function parseUnbounded(input: unknown): number {
  if (typeof input === "number") {
    if (!Number.isSafeInteger(input) || input < 0)
      throw new InvalidPeriodError(input, "seconds must be a whole number of 0 or more");
    return input;
  }
  if (typeof input !== "string")
    throw new InvalidPeriodError(input, "expected an ISO 8601 duration or a number of seconds");
  const text = input.trim();
  if (/^\d+$/.test(text)) return parseUnbounded(Number(text));
  const upper = text.toUpperCase();
  const match = ISO_PERIOD.exec(upper);
  if (!match || upper === "P" || upper.endsWith("T")) {
    throw new InvalidPeriodError(input, "expected an ISO 8601 duration such as PT1H, P1D or P7D");
  }
  const [, y, mo, w, d, h, m, s] = match;
  if (y !== undefined || mo !== undefined) {
    throw new InvalidPeriodError(input, "years and months have no fixed length; use days (P30D)");
  }
  const total =
    Number(w ?? 0) * SECONDS.W +
    Number(d ?? 0) * SECONDS.D +
    Number(h ?? 0) * SECONDS.H +
    Number(m ?? 0) * SECONDS.M +
    Number(s ?? 0);
  if (!Number.isSafeInteger(total)) throw new InvalidPeriodError(input, PERIOD_TOO_LONG);
  return total;
}

/** parsePeriod without the throw: null for anything that is not a period. */
export function tryParsePeriod(input: unknown): number | null {
  try {
    return parsePeriod(input);
  } catch {
    return null;
  }
}

/** 86400 → `"P1D"`, 3600 → `"PT1H"`, 90 → `"PT1M30S"`, 604800 → `"P7D"` (days, never weeks), 0 → `"PT0S"`. */
export function formatPeriod(seconds: number): string {
  if (!Number.isSafeInteger(seconds) || seconds < 0)
    throw new InvalidPeriodError(seconds, "seconds must be a whole number of 0 or more");
  if (seconds === 0) return "PT0S";
  const days = Math.floor(seconds / SECONDS.D);
  const hours = Math.floor((seconds % SECONDS.D) / SECONDS.H);
  const minutes = Math.floor((seconds % SECONDS.H) / SECONDS.M);
  const secs = seconds % SECONDS.M;
  const date = days > 0 ? `${days}D` : "";
  const time =
    (hours > 0 ? `${hours}H` : "") + (minutes > 0 ? `${minutes}M` : "") + (secs > 0 ? `${secs}S` : "");
  return `P${date}${time ? `T${time}` : ""}`;
}
