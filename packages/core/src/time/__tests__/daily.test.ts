import { nextLocalTimeOfDay, type WeekdayName } from "../daily";

describe("nextLocalTimeOfDay", () => {
  test.each<[string, string, string, string, WeekdayName[] | undefined, string]>([
    // [why, after, time, zone, days, expected]
    ["later today", "2024-01-15T06:00:00Z", "09:00", "UTC", undefined, "2024-01-15T09:00:00.000Z"],
    [
      "today's has passed: tomorrow",
      "2024-01-15T10:00:00Z",
      "09:00",
      "UTC",
      undefined,
      "2024-01-16T09:00:00.000Z",
    ],
    [
      "exactly at the time: the next one (strictly after)",
      "2024-01-15T09:00:00Z",
      "09:00",
      "UTC",
      undefined,
      "2024-01-16T09:00:00.000Z",
    ],
    [
      "in the recipient's zone",
      "2024-01-15T06:00:00Z",
      "09:00",
      "America/New_York",
      undefined,
      "2024-01-15T14:00:00.000Z",
    ],
    [
      "only on chosen days: Monday 2024-01-15 → Wednesday",
      "2024-01-15T10:00:00Z",
      "09:00",
      "UTC",
      ["wed", "fri"],
      "2024-01-17T09:00:00.000Z",
    ],
    [
      "same weekday next week when today's passed",
      "2024-01-15T10:00:00Z",
      "09:00",
      "UTC",
      ["mon"],
      "2024-01-22T09:00:00.000Z",
    ],
    [
      "weekday judged locally: Sunday 23:30 UTC is Monday in Berlin",
      "2024-01-14T23:30:00Z",
      "09:00",
      "Europe/Berlin",
      ["mon"],
      "2024-01-15T08:00:00.000Z",
    ],
    [
      "across spring forward: 09:00 EDT the next morning",
      "2024-03-09T20:00:00Z",
      "09:00",
      "America/New_York",
      undefined,
      "2024-03-10T13:00:00.000Z",
    ],
    [
      "across fall back: 09:00 EST the next morning",
      "2024-11-02T20:00:00Z",
      "09:00",
      "America/New_York",
      undefined,
      "2024-11-03T14:00:00.000Z",
    ],
    [
      "skipped 02:30: the jump to 03:00 EDT",
      "2024-03-10T00:00:00Z",
      "02:30",
      "America/New_York",
      undefined,
      "2024-03-10T07:00:00.000Z",
    ],
    [
      "repeated 01:30: the first occurrence",
      "2024-11-03T00:00:00Z",
      "01:30",
      "America/New_York",
      undefined,
      "2024-11-03T05:30:00.000Z",
    ],
    [
      "repeated 01:30 after the first: tomorrow, not the repeat",
      "2024-11-03T05:40:00Z",
      "01:30",
      "America/New_York",
      undefined,
      "2024-11-04T06:30:00.000Z",
    ],
    [
      "Berlin across spring forward",
      "2024-03-30T12:00:00Z",
      "08:00",
      "Europe/Berlin",
      undefined,
      "2024-03-31T06:00:00.000Z",
    ],
  ])("%s", (_why, after, time, zone, days, expected) => {
    expect(nextLocalTimeOfDay(new Date(after), time, zone, days).toISOString()).toBe(expected);
  });
});
