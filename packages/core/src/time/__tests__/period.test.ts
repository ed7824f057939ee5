import {
  formatPeriod,
  InvalidPeriodError,
  isPeriodTooLong,
  MAX_PERIOD_SECONDS,
  parsePeriod,
  tryParsePeriod,
} from "../period";

describe("parsePeriod", () => {
  test.each<[unknown, number]>([
    ["P1D", 86_400],
    ["PT1H", 3_600],
    ["PT1M30S", 90],
    ["P7D", 604_800],
    ["P1W", 604_800],
    ["P1DT2H3M4S", 93_784],
    ["pt15m", 900],
    [" PT10S ", 10],
    ["PT0S", 0],
    [3600, 3600],
    [0, 0],
    ["3600", 3600],
  ])("%j -> %d seconds", (input, seconds) => {
    expect(parsePeriod(input)).toBe(seconds);
  });

  test.each<[unknown, string]>([
    ["P1M", "years and months have no fixed length; use days (P30D)"],
    ["P1Y", "years and months have no fixed length; use days (P30D)"],
    ["P1Y2M3D", "years and months have no fixed length; use days (P30D)"],
    ["P", "expected an ISO 8601 duration such as PT1H, P1D or P7D"],
    ["PT", "expected an ISO 8601 duration such as PT1H, P1D or P7D"],
    ["P1DT", "expected an ISO 8601 duration such as PT1H, P1D or P7D"],
    ["1D", "expected an ISO 8601 duration such as PT1H, P1D or P7D"],
    ["PT1.5S", "expected an ISO 8601 duration such as PT1H, P1D or P7D"],
    ["P1H", "expected an ISO 8601 duration such as PT1H, P1D or P7D"],
    ["-P1D", "expected an ISO 8601 duration such as PT1H, P1D or P7D"],
    [-1, "seconds must be a whole number of 0 or more"],
    [1.5, "seconds must be a whole number of 0 or more"],
    [null, "expected an ISO 8601 duration or a number of seconds"],
    [2_147_483_648, "must be at most 2147483647 seconds (about 68 years)"],
    ["P100000W", "must be at most 2147483647 seconds (about 68 years)"],
    ["PT99999999999S", "must be at most 2147483647 seconds (about 68 years)"],
    ["P99999999999999999999D", "must be at most 2147483647 seconds (about 68 years)"],
  ])("%j is refused: %s", (input, why) => {
    expect(() => parsePeriod(input)).toThrow(InvalidPeriodError);
    expect(() => parsePeriod(input)).toThrow(`invalid period ${JSON.stringify(input)}: ${why}`);
    expect(tryParsePeriod(input)).toBeNull();
  });
});

describe("formatPeriod", () => {
  test.each([
    [86_400, "P1D"],
    [3_600, "PT1H"],
    [90, "PT1M30S"],
    [604_800, "P7D"],
    [0, "PT0S"],
    [59, "PT59S"],
    [93_784, "P1DT2H3M4S"],
    [90_000, "P1DT1H"],
  ])("%d -> %s", (seconds, text) => {
    expect(formatPeriod(seconds)).toBe(text);
    expect(parsePeriod(text)).toBe(seconds);
  });

  test("refuses negative and fractional seconds", () => {
    expect(() => formatPeriod(-1)).toThrow(InvalidPeriodError);
    expect(() => formatPeriod(1.5)).toThrow(InvalidPeriodError);
  });
});

describe("the longest period", () => {
  test("is what an integer column of seconds holds; one more is too long, not malformed", () => {
    expect(parsePeriod(MAX_PERIOD_SECONDS)).toBe(2_147_483_647);
    expect(parsePeriod("P3550W")).toBe(3550 * 604_800);
    expect(isPeriodTooLong(MAX_PERIOD_SECONDS + 1)).toBe(true);
    expect(isPeriodTooLong("P100000W")).toBe(true);
    expect(isPeriodTooLong(MAX_PERIOD_SECONDS)).toBe(false);
    expect(isPeriodTooLong("P1M")).toBe(false); // refused, but for its unit
    expect(isPeriodTooLong("nonsense")).toBe(false);
  });
});
