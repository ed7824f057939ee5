import { addLocalDays, fromLocal, toLocal } from "../zoned";

const at = (iso: string) => new Date(iso);

test("toLocal reads the wall clock of the zone, not of the process", () => {
  expect(toLocal(at("2024-03-10T07:30:00Z"), "America/New_York")).toEqual({
    year: 2024,
    month: 3,
    day: 10,
    weekday: 0,
    minuteOfDay: 3 * 60 + 30,
    msInMinute: 0,
  });
  expect(toLocal(at("2024-12-31T23:30:15.250Z"), "Europe/Berlin")).toEqual({
    year: 2025,
    month: 1,
    day: 1,
    weekday: 3,
    minuteOfDay: 30,
    msInMinute: 15_250,
  });
});

test("addLocalDays rolls months and years", () => {
  expect(addLocalDays({ year: 2024, month: 12, day: 31 }, 1)).toEqual({
    year: 2025,
    month: 1,
    day: 1,
    weekday: 3,
  });
  expect(addLocalDays({ year: 2024, month: 2, day: 28 }, 1)).toEqual({
    year: 2024,
    month: 2,
    day: 29,
    weekday: 4,
  });
});

describe("fromLocal", () => {
  test.each([
    [
      "ordinary winter time",
      "America/New_York",
      { year: 2024, month: 1, day: 15 },
      "08:00",
      undefined,
      "2024-01-15T13:00:00.000Z",
    ],
    [
      "ordinary summer time",
      "America/New_York",
      { year: 2024, month: 7, day: 15 },
      "08:00",
      undefined,
      "2024-07-15T12:00:00.000Z",
    ],
    [
      "spring gap: 02:30 does not exist, clocks jump at 03:00 EDT",
      "America/New_York",
      { year: 2024, month: 3, day: 10 },
      "02:30",
      undefined,
      "2024-03-10T07:00:00.000Z",
    ],
    [
      "spring gap Berlin: 02:15 does not exist",
      "Europe/Berlin",
      { year: 2024, month: 3, day: 31 },
      "02:15",
      undefined,
      "2024-03-31T01:00:00.000Z",
    ],
    [
      "fall back: first 01:30 (EDT)",
      "America/New_York",
      { year: 2024, month: 11, day: 3 },
      "01:30",
      undefined,
      "2024-11-03T05:30:00.000Z",
    ],
    [
      "fall back: second 01:30 (EST) when the first lies behind",
      "America/New_York",
      { year: 2024, month: 11, day: 3 },
      "01:30",
      "2024-11-03T06:00:00Z",
      "2024-11-03T06:30:00.000Z",
    ],
    [
      "fall back Berlin: first 02:30 (CEST)",
      "Europe/Berlin",
      { year: 2024, month: 10, day: 27 },
      "02:30",
      undefined,
      "2024-10-27T00:30:00.000Z",
    ],
  ])("%s", (_why, zone, date, hhmm, notBefore, expected) => {
    const [h, m] = hhmm.split(":").map(Number) as [number, number];
    expect(fromLocal(date, h * 60 + m, zone, notBefore ? at(notBefore) : undefined)?.toISOString()).toBe(
      expected,
    );
  });

  test("null when every occurrence lies before notBefore", () => {
    expect(fromLocal({ year: 2024, month: 1, day: 15 }, 480, "UTC", at("2024-01-15T09:00:00Z"))).toBeNull();
  });

  test("unknown zones throw", () => {
    expect(() => toLocal(at("2024-01-01T00:00:00Z"), "Not/AZone")).toThrow('unknown time zone "Not/AZone"');
  });
});
