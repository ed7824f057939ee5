import { isInsideWindow, isWindowDisabled, nextAllowedTime } from "../quiet-hours";

const NIGHT = { start: "22:00", end: "08:00" };
const LUNCH = { start: "12:00", end: "14:00" };

describe("nextAllowedTime", () => {
  test.each([
    // [why, window, zone, dueAt, allowedAt]
    [
      "overnight, evening part: ends next morning",
      NIGHT,
      "UTC",
      "2024-01-15T23:00:00Z",
      "2024-01-16T08:00:00.000Z",
    ],
    [
      "overnight, morning part: ends this morning",
      NIGHT,
      "UTC",
      "2024-01-16T03:00:00Z",
      "2024-01-16T08:00:00.000Z",
    ],
    ["start is inside", NIGHT, "UTC", "2024-01-15T22:00:00Z", "2024-01-16T08:00:00.000Z"],
    ["end is outside", NIGHT, "UTC", "2024-01-16T08:00:00Z", "2024-01-16T08:00:00.000Z"],
    ["one minute before the end", NIGHT, "UTC", "2024-01-16T07:59:00Z", "2024-01-16T08:00:00.000Z"],
    ["daytime is outside", NIGHT, "UTC", "2024-01-16T12:34:56Z", "2024-01-16T12:34:56.000Z"],
    ["overnight across a month end", NIGHT, "UTC", "2024-01-31T22:30:00Z", "2024-02-01T08:00:00.000Z"],
    ["same-day window, inside", LUNCH, "UTC", "2024-01-16T13:00:00Z", "2024-01-16T14:00:00.000Z"],
    ["same-day window, before", LUNCH, "UTC", "2024-01-16T11:59:00Z", "2024-01-16T11:59:00.000Z"],
    ["same-day window, at end", LUNCH, "UTC", "2024-01-16T14:00:00Z", "2024-01-16T14:00:00.000Z"],
    [
      "equal start and end disables",
      { start: "08:00", end: "08:00" },
      "UTC",
      "2024-01-16T03:00:00Z",
      "2024-01-16T03:00:00.000Z",
    ],
    [
      "read in the recipient's zone (Berlin, winter)",
      NIGHT,
      "Europe/Berlin",
      "2024-01-15T21:30:00Z",
      "2024-01-16T07:00:00.000Z",
    ],
    [
      "in Berlin 21:30 UTC summer is 23:30 local",
      NIGHT,
      "Europe/Berlin",
      "2024-07-15T21:30:00Z",
      "2024-07-16T06:00:00.000Z",
    ],
    [
      "22:00 UTC is 17:00 in New York: outside",
      NIGHT,
      "America/New_York",
      "2024-01-15T22:00:00Z",
      "2024-01-15T22:00:00.000Z",
    ],
    // DST nights: the window end is local 08:00 under the offset valid in the morning.
    [
      "New York spring-forward night (EST evening, EDT morning)",
      NIGHT,
      "America/New_York",
      "2024-03-10T04:00:00Z",
      "2024-03-10T12:00:00.000Z",
    ],
    [
      "New York spring-forward night, inside the skipped hour's neighbour 01:59 EST",
      NIGHT,
      "America/New_York",
      "2024-03-10T06:59:00Z",
      "2024-03-10T12:00:00.000Z",
    ],
    [
      "New York spring-forward night, 03:00 EDT",
      NIGHT,
      "America/New_York",
      "2024-03-10T07:00:00Z",
      "2024-03-10T12:00:00.000Z",
    ],
    [
      "New York fall-back night (EDT evening, EST morning)",
      NIGHT,
      "America/New_York",
      "2024-11-03T03:00:00Z",
      "2024-11-03T13:00:00.000Z",
    ],
    [
      "New York fall-back, first 01:30 (EDT)",
      NIGHT,
      "America/New_York",
      "2024-11-03T05:30:00Z",
      "2024-11-03T13:00:00.000Z",
    ],
    [
      "New York fall-back, second 01:30 (EST)",
      NIGHT,
      "America/New_York",
      "2024-11-03T06:30:00Z",
      "2024-11-03T13:00:00.000Z",
    ],
    [
      "Berlin spring-forward night",
      NIGHT,
      "Europe/Berlin",
      "2024-03-30T22:30:00Z",
      "2024-03-31T06:00:00.000Z",
    ],
    ["Berlin fall-back night", NIGHT, "Europe/Berlin", "2024-10-26T20:30:00Z", "2024-10-27T07:00:00.000Z"],
    // Window ends that fall on a DST transition.
    [
      "end 02:30 skipped by spring gap: the jump to 03:00 EDT",
      { start: "00:00", end: "02:30" },
      "America/New_York",
      "2024-03-10T06:00:00Z",
      "2024-03-10T07:00:00.000Z",
    ],
    [
      "end 02:30 skipped in Berlin: the jump to 03:00 CEST",
      { start: "23:00", end: "02:30" },
      "Europe/Berlin",
      "2024-03-30T23:00:00Z",
      "2024-03-31T01:00:00.000Z",
    ],
    [
      "end 01:30 repeated: from 00:30 EDT the first 01:30",
      { start: "00:00", end: "01:30" },
      "America/New_York",
      "2024-11-03T04:30:00Z",
      "2024-11-03T05:30:00.000Z",
    ],
    [
      "end 01:30 repeated: from 01:10 EST the second 01:30",
      { start: "00:00", end: "01:30" },
      "America/New_York",
      "2024-11-03T06:10:00Z",
      "2024-11-03T06:30:00.000Z",
    ],
  ])("%s", (_why, window, zone, dueAt, allowedAt) => {
    expect(nextAllowedTime(new Date(dueAt), window, zone).toISOString()).toBe(allowedAt);
  });
});

test.each([
  [NIGHT, "2024-01-16T03:00:00Z", true],
  [NIGHT, "2024-01-16T08:00:00Z", false],
  [LUNCH, "2024-01-16T12:00:00Z", true],
  [{ start: "09:00", end: "09:00" }, "2024-01-16T09:00:00Z", false],
])("isInsideWindow(%j, %s) = %s", (window, instant, inside) => {
  expect(isInsideWindow(new Date(instant), window, "UTC")).toBe(inside);
});

test("isWindowDisabled only for equal start and end", () => {
  expect(isWindowDisabled({ start: "00:00", end: "00:00" })).toBe(true);
  expect(isWindowDisabled(NIGHT)).toBe(false);
});
