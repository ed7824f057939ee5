import { errorCode, isRetryableStatus, parseRetryAfter, statusFailure } from "../http";

const now = new Date("2025-03-01T12:00:00.000Z");

describe("parseRetryAfter", () => {
  it.each([
    ["120", 120_000],
    [" 5 ", 5_000],
    ["0", 0],
    ["Sat, 01 Mar 2025 12:00:30 GMT", 30_000],
    ["Sat, 01 Mar 2025 11:00:00 GMT", 0],
    ["soon", undefined],
    ["", undefined],
    [null, undefined],
  ])("%p -> %p", (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe("isRetryableStatus", () => {
  it.each([
    [400, false],
    [401, false],
    [404, false],
    [408, true],
    [409, false],
    [410, false],
    [429, true],
    [500, true],
    [503, true],
  ])("%d -> %s", (status, expected) => expect(isRetryableStatus(status)).toBe(expected));
});

describe("statusFailure", () => {
  it("keeps Retry-After on a retryable answer", () => {
    expect(statusFailure("x", 429, new Headers({ "retry-after": "7" }), now, "slow down")).toEqual({
      ok: false,
      retryable: true,
      error: "x 429 slow down",
      retryAfterMs: 7000,
    });
  });
  it("is permanent for a 4xx", () => {
    expect(statusFailure("x", 422, new Headers(), now)).toEqual({
      ok: false,
      retryable: false,
      error: "x 422",
    });
  });
});

describe("errorCode", () => {
  it("reads the code fetch wraps in its cause", () => {
    expect(
      errorCode(
        new TypeError("fetch failed", { cause: Object.assign(new Error("x"), { code: "ECONNREFUSED" }) }),
      ),
    ).toBe("ECONNREFUSED");
  });
});
