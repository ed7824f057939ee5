// Quiet hours (docs/policy.md, "Quiet hours"): a daily window of local wall-clock time, start
// inclusive and end exclusive. start > end spans midnight (22:00-08:00); start == end means "no
// quiet hours".
import { parseTimeOfDay } from "./time-of-day";
import { addLocalDays, fromLocal, toLocal } from "./zoned";

export interface DailyWindow {
  /** "HH:MM" */
  start: string;
  /** "HH:MM" */
  end: string;
}

export function isWindowDisabled(window: DailyWindow): boolean {
  return parseTimeOfDay(window.start) === parseTimeOfDay(window.end);
}

/** True when `instant`, read on the wall clock of `zone`, falls inside the window. */
export function isInsideWindow(instant: Date, window: DailyWindow, zone: string): boolean {
  return windowEndFor(instant, window, zone) !== null;
}

/**
 * When a message due at `dueAt` may go out: `dueAt` itself outside the window, else the window's
 * end in `zone`. A skipped end time (spring gap) becomes the first valid instant after it; a
 * repeated one (fall back) is its first occurrence at or after `dueAt`.
 */
export function nextAllowedTime(dueAt: Date, window: DailyWindow, zone: string): Date {
  return windowEndFor(dueAt, window, zone) ?? dueAt;
}

// The end of the window occurrence that contains `instant`, or null when it is outside.
function windowEndFor(instant: Date, window: DailyWindow, zone: string): Date | null {
  const start = parseTimeOfDay(window.start);
  const end = parseTimeOfDay(window.end);
  if (start === end) return null;
  const local = toLocal(instant, zone);
  const minute = local.minuteOfDay;
  let endDayOffset: number;
  if (start < end) {
    if (minute < start || minute >= end) return null;
    endDayOffset = 0;
  } else if (minute >= start) {
    endDayOffset = 1; // evening part of an overnight window: it ends tomorrow morning
  } else if (minute < end) {
    endDayOffset = 0;
  } else {
    return null;
  }
  const endDate = addLocalDays(local, endDayOffset);
  // A window end always lies ahead of an instant inside the window, so this is never null.
  return fromLocal(endDate, end, zone, instant) ?? instant;
}
