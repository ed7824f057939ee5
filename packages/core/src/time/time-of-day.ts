// Wall-clock times of day written "HH:MM" (quiet hours, digest deliver_at, texting hours).

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after local midnight, 0..1439. */
export type MinuteOfDay = number;

export function isTimeOfDay(value: unknown): value is string {
  return typeof value === "string" && HH_MM.test(value);
}

/** `"22:00"` → 1320. Throws RangeError for anything but a two-digit 00:00..23:59. */
export function parseTimeOfDay(value: string): MinuteOfDay {
  const match = HH_MM.exec(value);
  if (!match)
    throw new RangeError(
      `invalid time of day ${JSON.stringify(value)}: expected HH:MM between 00:00 and 23:59`,
    );
  return Number(match[1]) * 60 + Number(match[2]);
}

/** 1320 → `"22:00"`. */
export function formatTimeOfDay(minute: MinuteOfDay): string {
  if (!Number.isInteger(minute) || minute < 0 || minute >= 1440)
    throw new RangeError(`minute of day out of range: ${minute}`);
  return `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;
}
