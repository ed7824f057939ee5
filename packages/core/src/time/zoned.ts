// Conversions between instants and wall-clock time in an IANA zone. The wall clock comes from
// date-fns-tz (the tz database via Intl), so nothing here depends on the process's own zone.
// (date-fns-tz's getTimezoneOffset reads its date argument as local time, which is ambiguous
// around transitions, so the offset of an instant is derived from formatInTimeZone instead.)
import { formatInTimeZone } from "date-fns-tz";
import type { MinuteOfDay } from "./time-of-day";

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Weekday numbers as in Date#getUTCDay: 0 = Sunday … 6 = Saturday. */
export type WeekdayNumber = 0 | 1 | 2 | 3 | 4 | 5 | 6;

export interface LocalDate {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
}

export interface LocalDateTime extends LocalDate {
  weekday: WeekdayNumber;
  /** Minutes after local midnight, seconds dropped. */
  minuteOfDay: MinuteOfDay;
  /** Milliseconds after the start of the local minute, so comparisons stay exact. */
  msInMinute: number;
}

const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})$/;

/** Milliseconds the wall clock of `zone` is ahead of UTC at `instantMs`. */
function offsetMs(zone: string, instantMs: number): number {
  let text: string;
  try {
    text = formatInTimeZone(instantMs, zone, "yyyy-MM-dd'T'HH:mm:ss.SSS");
  } catch {
    throw new RangeError(`unknown time zone ${JSON.stringify(zone)}`);
  }
  const parts = WALL_CLOCK.exec(text);
  if (!parts) throw new RangeError(`unknown time zone ${JSON.stringify(zone)}`);
  const [, y, mo, d, h, mi, s, ms] = parts.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms!) - instantMs;
}

/** The wall clock in `zone` at `instant`. */
export function toLocal(instant: Date, zone: string): LocalDateTime {
  const wall = new Date(instant.getTime() + offsetMs(zone, instant.getTime()));
  const ms = wall.getUTCSeconds() * 1000 + wall.getUTCMilliseconds();
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    weekday: wall.getUTCDay() as WeekdayNumber,
    minuteOfDay: wall.getUTCHours() * 60 + wall.getUTCMinutes(),
    msInMinute: ms,
  };
}

/** The local date `days` after `date` (calendar arithmetic, month and year roll over). */
export function addLocalDays(date: LocalDate, days: number): LocalDate & { weekday: WeekdayNumber } {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    weekday: d.getUTCDay() as WeekdayNumber,
  };
}

/**
 * The instant at which the wall clock in `zone` shows `minuteOfDay` on `date`.
 * - Repeated time (autumn fall-back): the earliest occurrence that is not before `notBefore`
 *   (so a time inside the repeated hour can still reach the end of the same hour).
 * - Skipped time (spring gap): the first valid instant after it, i.e. the moment the clocks jump.
 * Returns null only when every occurrence lies before `notBefore`.
 */
export function fromLocal(
  date: LocalDate,
  minuteOfDay: MinuteOfDay,
  zone: string,
  notBefore?: Date,
): Date | null {
  const wallMs = Date.UTC(date.year, date.month - 1, date.day) + minuteOfDay * MINUTE_MS;
  // Offsets in force a day either side cover every candidate a single transition can produce.
  const offsets = new Set([
    offsetMs(zone, wallMs - DAY_MS),
    offsetMs(zone, wallMs),
    offsetMs(zone, wallMs + DAY_MS),
  ]);
  const occurrences = [...offsets]
    .map((offset) => wallMs - offset)
    .filter((candidate) => offsetMs(zone, candidate) === wallMs - candidate)
    .sort((a, b) => a - b);
  const floor = notBefore?.getTime() ?? Number.NEGATIVE_INFINITY;
  if (occurrences.length === 0) {
    const jump = endOfGap(zone, wallMs);
    return jump >= floor ? new Date(jump) : null;
  }
  const chosen = occurrences.find((candidate) => candidate >= floor);
  return chosen === undefined ? null : new Date(chosen);
}

// In a gap the wall time maps to no instant; the clocks jump somewhere between the instant read
// with the later offset and the one read with the earlier offset. Find that jump to the ms.
function endOfGap(zone: string, wallMs: number): number {
  const before = offsetMs(zone, wallMs - DAY_MS);
  const after = offsetMs(zone, wallMs + DAY_MS);
  let lo = wallMs - Math.max(before, after); // still on the old offset
  let hi = wallMs - Math.min(before, after); // already on the new offset
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetMs(zone, mid) === after) hi = mid;
    else lo = mid;
  }
  return hi;
}
