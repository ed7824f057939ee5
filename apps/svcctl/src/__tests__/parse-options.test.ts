import { collectScopes, parseAgentKey, parseExpires, parseKeyName, parseLimit } from "../parse-options";

const NOW = new Date("2026-03-01T12:00:00.000Z");

describe("collectScopes", () => {
  it.each([
    [["admin"], ["admin"]],
    [["events:write,messages:read"], ["events:write", "messages:read"]],
    [
      ["events:write", "messages:read, recipients:read"],
      ["events:write", "messages:read", "recipients:read"],
    ],
    [["admin", "admin,admin"], ["admin"]],
  ])("%j → %j", (values, expected) => {
    expect(
      values.reduce<string[] | undefined>((previous, value) => collectScopes(value, previous), undefined),
    ).toEqual(expected);
  });

  it.each([
    [
      "nope",
      "unknown scope 'nope' (one of events:write, messages:read, messages:write, recipients:read, recipients:write, admin).",
    ],
    [
      "admin,read,write",
      "unknown scope 'read', 'write' (one of events:write, messages:read, messages:write, recipients:read, recipients:write, admin).",
    ],
    [" , ", "give at least one scope."],
  ])("refuses %j", (value, message) => {
    expect(() => collectScopes(value, undefined)).toThrow(message);
  });
});

describe("parseExpires", () => {
  it.each([
    ["P30D", "2026-03-31T12:00:00.000Z"],
    ["PT12H", "2026-03-02T00:00:00.000Z"],
    ["3600", "2026-03-01T13:00:00.000Z"],
    ["2027-01-31", "2027-01-31T00:00:00.000Z"],
    ["2027-01-31T09:30:00Z", "2027-01-31T09:30:00.000Z"],
    ["2027-01-31T09:30:00+02:00", "2027-01-31T07:30:00.000Z"],
    ["2026-03-01T12:00:00.001Z", "2026-03-01T12:00:00.001Z"],
  ])("%s → %s", (value, expected) => {
    expect(parseExpires(value, NOW).toISOString()).toBe(expected);
  });

  it.each([
    [
      "P1M",
      "expected an ISO 8601 date, a time with its zone (2027-01-31T09:00:00Z) or a period (P30D, PT12H).",
    ],
    ["PT0S", "the period must be longer than zero."],
    ["2027-01-31T09:30:00", "expected an ISO 8601 date"],
    ["tomorrow", "expected an ISO 8601 date"],
    ["2027-02-30", "expected an ISO 8601 date"],
    ["2027-01-31T25:00:00Z", "expected an ISO 8601 date"],
    ["2026-03-01T12:00:00Z", "the time must be in the future."],
    ["2020-01-01", "the time must be in the future."],
  ])("refuses %s", (value, message) => {
    expect(() => parseExpires(value, NOW)).toThrow(message);
  });
});

describe("parseLimit", () => {
  it.each([
    ["1", 1],
    ["500", 500],
    [" 20 ", 20],
  ])("%j → %d", (value, expected) => expect(parseLimit(value)).toBe(expected));

  it.each(["0", "501", "-1", "2.5", "ten", ""])("refuses %j", (value) => {
    expect(() => parseLimit(value)).toThrow("expected a whole number from 1 to 500.");
  });
});

describe("parseKeyName and parseAgentKey", () => {
  it("trims names and bounds them to 1-200 characters", () => {
    expect(parseKeyName("  deploy bot ")).toBe("deploy bot");
    expect(parseKeyName("x".repeat(200))).toBe("x".repeat(200));
    expect(() => parseKeyName("   ")).toThrow("the name must not be empty.");
    expect(() => parseKeyName("x".repeat(201))).toThrow("the name must be at most 200 characters.");
  });

  it("accepts agent keys of the admin-resource pattern only", () => {
    expect(parseAgentKey("support-bot.v2_1")).toBe("support-bot.v2_1");
    for (const bad of ["-bot", "bot key", "", "a:b"]) {
      expect(() => parseAgentKey(bad)).toThrow("not an agent key (letters, digits, '_', '.', '-').");
    }
  });
});
