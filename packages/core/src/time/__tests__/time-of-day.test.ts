import { formatTimeOfDay, isTimeOfDay, parseTimeOfDay } from "../time-of-day";
import { isValidTimeZone, resolveTimeZone } from "../zone";

test.each([
  ["00:00", 0],
  ["08:00", 480],
  ["22:00", 1320],
  ["23:59", 1439],
])("parseTimeOfDay(%s) = %d and back", (text, minute) => {
  expect(parseTimeOfDay(text)).toBe(minute);
  expect(formatTimeOfDay(minute)).toBe(text);
  expect(isTimeOfDay(text)).toBe(true);
});

test.each(["24:00", "8:00", "08:60", "0800", "08:00:00", "", " 08:00"])("%j is not a time of day", (text) => {
  expect(isTimeOfDay(text)).toBe(false);
  expect(() => parseTimeOfDay(text)).toThrow(
    `invalid time of day ${JSON.stringify(text)}: expected HH:MM between 00:00 and 23:59`,
  );
});

test.each<[unknown, boolean]>([
  ["America/New_York", true],
  ["Europe/Berlin", true],
  ["UTC", true],
  ["Etc/GMT+5", true],
  ["America/Argentina/Buenos_Aires", true],
  ["Mars/Olympus", false],
  ["+05:00", false],
  ["", false],
  [null, false],
  [42, false],
])("isValidTimeZone(%j) = %s", (zone, valid) => {
  expect(isValidTimeZone(zone)).toBe(valid);
});

test.each<[string | null | undefined, string]>([
  ["Europe/Berlin", "Europe/Berlin"],
  [null, "UTC"],
  [undefined, "UTC"],
  ["Not/AZone", "UTC"],
])("resolveTimeZone(%j, UTC) = %s", (zone, resolved) => {
  expect(resolveTimeZone(zone, "UTC")).toBe(resolved);
});
