// Recurring local times of day on chosen weekdays: digest `deliver_at` + `days` (docs/digests.md,
// "The digest policy").
import { parseTimeOfDay } from "./time-of-day";
import { addLocalDays, fromLocal, toLocal, type WeekdayNumber } from "./zoned";

export const WEEKDAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
export type WeekdayName = (typeof WEEKDAY_NAMES)[number];

export function isWeekdayName(value: unknown): value is WeekdayName {
  return typeof value === "string" && (WEEKDAY_NAMES as readonly string[]).includes(value);
}

export function weekdayNumber(name: WeekdayName): WeekdayNumber {
  return WEEKDAY_NAMES.indexOf(name) as WeekdayNumber;
}

/**
 * The first instant strictly after `after` at which the wall clock in `zone` shows `time`
 * ("HH:MM") on one of `days` (every day when omitted or empty). A time skipped by a spring
 * gap becomes the moment the clocks jump; a repeated time counts at its first occurrence.
 */
export function nextLocalTimeOfDay(
  after: Date,
  time: string,
  zone: string,
  days?: readonly WeekdayName[],
): Date {
  const minute = parseTimeOfDay(time);
  const allowed = new Set<number>(days && days.length > 0 ? days.map(weekdayNumber) : [0, 1, 2, 3, 4, 5, 6]);
  const today = toLocal(after, zone);
  // Eight days reach the same weekday next week even when today's slot has passed.
  for (let offset = 0; offset <= 8; offset++) {
    const date = addLocalDays(today, offset);
    if (!allowed.has(date.weekday)) continue;
    // No notBefore: a repeated hour must not produce a second delivery on the same day.
    const at = fromLocal(date, minute, zone);
    if (at && at.getTime() > after.getTime()) return at;
  }
  throw new RangeError(`no ${time} in ${zone} within eight days after ${after.toISOString()}`);
}
