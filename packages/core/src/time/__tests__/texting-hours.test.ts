import {
  FEDERAL_TEXTING,
  isWithinTextingHours,
  nextTextingTime,
  resolveJurisdiction,
  STATE_TEXTING,
  STRICT_TEXTING,
  type TextingJurisdiction,
} from "../texting-hours";

const row = (code: string): TextingJurisdiction => {
  const found = [FEDERAL_TEXTING, STRICT_TEXTING, ...STATE_TEXTING].find((j) => j.code === code);
  if (!found) throw new Error(code);
  return found;
};

// 2024-06-08 is a Saturday, 2024-06-09 a Sunday, 2024-06-10 a Monday.
describe("nextTextingTime", () => {
  test.each([
    // [why, code, zone, dueAt, expected]
    ["federal: inside", "US", "America/New_York", "2024-06-10T16:00:00Z", "2024-06-10T16:00:00.000Z"],
    ["federal: 07:00 → 08:00", "US", "America/New_York", "2024-06-10T11:00:00Z", "2024-06-10T12:00:00.000Z"],
    [
      "federal: 21:00 is closed → 08:00 next day",
      "US",
      "America/New_York",
      "2024-06-11T01:00:00Z",
      "2024-06-11T12:00:00.000Z",
    ],
    ["federal: 20:59 is open", "US", "America/New_York", "2024-06-11T00:59:00Z", "2024-06-11T00:59:00.000Z"],
    [
      "federal: Sundays are open",
      "US",
      "America/New_York",
      "2024-06-09T14:00:00Z",
      "2024-06-09T14:00:00.000Z",
    ],
    [
      "Connecticut: 08:30 → 09:00",
      "US-CT",
      "America/New_York",
      "2024-06-10T12:30:00Z",
      "2024-06-10T13:00:00.000Z",
    ],
    [
      "Florida: 20:00 → 08:00 next day",
      "US-FL",
      "America/New_York",
      "2024-06-11T00:00:00Z",
      "2024-06-11T12:00:00.000Z",
    ],
    [
      "Washington: 20:30 → 08:00 next day",
      "US-WA",
      "America/Los_Angeles",
      "2024-06-11T03:30:00Z",
      "2024-06-11T15:00:00.000Z",
    ],
    [
      "Texas: Saturday 08:30 → 09:00",
      "US-TX",
      "America/Chicago",
      "2024-06-08T13:30:00Z",
      "2024-06-08T14:00:00.000Z",
    ],
    [
      "Texas: Sunday 10:00 → 12:00",
      "US-TX",
      "America/Chicago",
      "2024-06-09T15:00:00Z",
      "2024-06-09T17:00:00.000Z",
    ],
    [
      "Texas: Sunday 12:30 is open",
      "US-TX",
      "America/Chicago",
      "2024-06-09T17:30:00Z",
      "2024-06-09T17:30:00.000Z",
    ],
    [
      "Texas: Saturday 21:00 → Sunday 12:00",
      "US-TX",
      "America/Chicago",
      "2024-06-09T02:00:00Z",
      "2024-06-09T17:00:00.000Z",
    ],
    [
      "Texas: Sunday 21:30 → Monday 09:00",
      "US-TX",
      "America/Chicago",
      "2024-06-10T02:30:00Z",
      "2024-06-10T14:00:00.000Z",
    ],
    [
      "Utah: Saturday 20:59 is open",
      "US-UT",
      "America/Denver",
      "2024-06-09T02:59:00Z",
      "2024-06-09T02:59:00.000Z",
    ],
    [
      "Utah: Saturday 21:30 → Monday 08:00",
      "US-UT",
      "America/Denver",
      "2024-06-09T03:30:00Z",
      "2024-06-10T14:00:00.000Z",
    ],
    [
      "Utah: Sunday noon → Monday 08:00",
      "US-UT",
      "America/Denver",
      "2024-06-09T18:00:00Z",
      "2024-06-10T14:00:00.000Z",
    ],
    [
      "strict: Saturday 20:00 → Monday 09:00",
      "strict",
      "America/New_York",
      "2024-06-09T00:00:00Z",
      "2024-06-10T13:00:00.000Z",
    ],
    [
      "strict: Sunday → Monday 09:00",
      "strict",
      "America/New_York",
      "2024-06-09T15:00:00Z",
      "2024-06-10T13:00:00.000Z",
    ],
    [
      "strict: Friday 08:45 → 09:00",
      "strict",
      "America/New_York",
      "2024-06-07T12:45:00Z",
      "2024-06-07T13:00:00.000Z",
    ],
    [
      "federal across spring forward: Sunday 01:00 EST → 08:00 EDT",
      "US",
      "America/New_York",
      "2024-03-10T06:00:00Z",
      "2024-03-10T12:00:00.000Z",
    ],
    [
      "federal across fall back: Sunday 01:30 EST → 08:00 EST",
      "US",
      "America/New_York",
      "2024-11-03T06:30:00Z",
      "2024-11-03T13:00:00.000Z",
    ],
  ])("%s", (_why, code, zone, dueAt, expected) => {
    expect(nextTextingTime(new Date(dueAt), row(code), zone).toISOString()).toBe(expected);
  });

  test("isWithinTextingHours", () => {
    expect(isWithinTextingHours(new Date("2024-06-09T17:30:00Z"), row("US-TX"), "America/Chicago")).toBe(
      true,
    );
    expect(isWithinTextingHours(new Date("2024-06-09T15:00:00Z"), row("US-TX"), "America/Chicago")).toBe(
      false,
    );
  });
});

describe("the jurisdiction table", () => {
  test.each([
    ["US", "08:00", "21:00", undefined, null],
    ["US-CT", "09:00", "20:00", undefined, null],
    ["US-FL", "08:00", "20:00", undefined, 3],
    ["US-MD", "08:00", "20:00", undefined, 3],
    ["US-OK", "08:00", "20:00", undefined, 3],
    ["US-OR", "08:00", "20:00", undefined, 3],
    ["US-TX", "09:00", "21:00", { start: "12:00", end: "21:00" }, null],
    ["US-UT", "08:00", "21:00", null, null],
    ["US-VA", "08:00", "21:00", undefined, null],
    ["US-WA", "08:00", "20:00", undefined, null],
    ["strict", "09:00", "20:00", null, 3],
  ])("%s: %s-%s, sunday %j, cap %j", (code, start, end, sunday, cap) => {
    const j = row(code);
    expect(j.hours).toEqual({ start, end });
    expect(j.sunday).toEqual(sunday);
    expect(j.capPer24h).toBe(cap);
  });
});

describe("resolveJurisdiction", () => {
  test.each<[string | null, string | string[] | null, "strict" | "federal", string | null, string | null]>([
    // [region, phone, unknownState, code, source]
    ["US-FL", null, "strict", "US-FL", "Florida"],
    ["us-tx", "+15125550100", "strict", "US-TX", "Texas"],
    ["US-NY", null, "strict", "US", "US federal"],
    ["US", null, "strict", "strict", "state unknown"],
    ["US", null, "federal", "US", "US federal"],
    [null, "+15125550100", "strict", "strict", "state unknown"],
    [null, "+1 (512) 555-0100", "federal", "US", "US federal"],
    [null, ["+491701234567", "+15125550100"], "strict", "strict", "state unknown"],
    [null, "+491701234567", "strict", null, null],
    [null, null, "strict", null, null],
    ["CA", "+14165550100", "strict", null, null],
    ["DE-BY", null, "strict", null, null],
  ])("region %j, phone %j, unknown %s → %j", (region, phone, unknownState, code, source) => {
    const j = resolveJurisdiction(region, phone, unknownState);
    expect(j?.code ?? null).toBe(code);
    expect(j?.source ?? null).toBe(source);
  });
});
