import { REDACTED, redactString, redactValue } from "../redact";

const KEY = `svc_${"a1B2c3D4e5".repeat(4)}xyz`; // svc_ + 43 base62 chars

describe("redactString", () => {
  it.each([
    [`key ${KEY} leaked`, `key svc_${REDACTED} leaked`],
    ["Authorization: Bearer abc.def-ghi", `Authorization: Bearer ${REDACTED}`],
    [`bearer ${KEY}`, `bearer ${REDACTED}`],
    [`${KEY}0`, `${KEY}0`], // 44 characters: not a key
    ["svc_short is not a key", "svc_short is not a key"],
    ["nothing secret here", "nothing secret here"],
  ])("%s", (input, expected) => {
    expect(redactString(input)).toBe(expected);
  });
});

describe("redactValue", () => {
  it.each([
    ["authorization", "Bearer x", REDACTED],
    ["Authorization", ["a"], REDACTED],
    ["password", "hunter2", REDACTED],
    ["callback_secret", "s3cr3t", REDACTED],
    ["preference_token", "tok", REDACTED],
    ["api_key", "k", REDACTED],
    ["cookie", "sid=1", REDACTED],
    ["max_tokens", 800, 800],
    ["secret_enabled", true, true],
    ["token", null, null],
    ["name", "alice", "alice"],
  ])("key %s", (key, value, expected) => {
    expect(redactValue({ [key]: value })).toEqual({ [key]: expected });
  });

  it("walks nested objects and arrays without mutating the input", () => {
    const input = {
      headers: { authorization: "Bearer z", accept: "json" },
      list: [{ password: "p" }, `x ${KEY}`],
    };
    expect(redactValue(input)).toEqual({
      headers: { authorization: REDACTED, accept: "json" },
      list: [{ password: REDACTED }, `x svc_${REDACTED}`],
    });
    expect(input.headers.authorization).toBe("Bearer z");
  });

  it("turns errors into redacted plain objects", () => {
    const err = new Error(`bad key ${KEY}`);
    const out = redactValue({ err }) as { err: { name: string; message: string; stack: string } };
    expect(out.err.name).toBe("Error");
    expect(out.err.message).toBe(`bad key svc_${REDACTED}`);
    expect(out.err.stack).not.toContain(KEY);
  });

  it("survives cycles", () => {
    const a: Record<string, unknown> = { name: "a" };
    a.self = a;
    expect(redactValue(a)).toEqual({ name: "a", self: "[Truncated]" });
  });
});
