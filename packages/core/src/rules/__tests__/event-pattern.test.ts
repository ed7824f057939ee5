import {
  globMatches,
  isWildcardPattern,
  patternSeesEvent,
  validateEventName,
  validateEventPattern,
} from "../event-pattern";
import { isValidResourceKey } from "../keys";

describe("globMatches", () => {
  it.each([
    ["order.created", "order.created", true],
    ["order.created", "order.updated", false],
    ["order.*", "order.created", true],
    ["order.*", "order.created.late", true],
    ["order.*", "order.", true],
    ["order.*", "order", false],
    ["order.*", "orders.created", false],
    ["*", "anything.at.all", true],
    ["*", "", true],
    ["a.*.b", "a.x.b", true],
    ["a.*.b", "a.x.y.b", true],
    ["a.*.b", "a..b", true],
    ["a.*.b", "a.b", false],
    ["a.*.b", "a.x.bc", false],
    ["*.created", "order.created", true],
    ["*.created", "order.created.not", false],
    ["*created*", "order.created.now", true],
    ["a**b", "ab", true],
    ["a*a*a*a*a*b", "a".repeat(200), false],
    // Regex metacharacters are literal characters.
    ["order.created", "orderXcreated", false],
    ["order.(x)+", "order.(x)+", true],
    ["order.(x)+", "order.xx", false],
    ["[ab]", "a", false],
    ["[ab]", "[ab]", true],
    ["price$", "price$", true],
    ["a?c", "abc", false],
    ["a\\*", "a\\anything", true],
  ])("%j vs %j -> %s", (pattern, name, expected) => {
    expect(globMatches(pattern, name)).toBe(expected);
  });
});

describe("patternSeesEvent", () => {
  it.each([
    ["svc.approval_requested", "svc.approval_requested", "svc", true],
    ["*", "svc.approval_requested", "svc", false],
    ["svc.*", "svc.approval_requested", "svc", false],
    ["svc.approval_*", "svc.approval_requested", "svc", false],
    ["*", "order.created", "api", true],
    ["order.*", "order.created", "api", true],
    ["order.created", "order.created", "api", true],
    ["order.created", "order.updated", "api", false],
  ] as const)("%j sees %j from %s: %s", (pattern, name, source, expected) => {
    expect(patternSeesEvent(pattern, { name, source })).toBe(expected);
  });

  it("tells wildcards from exact names", () => {
    expect(isWildcardPattern("a.*")).toBe(true);
    expect(isWildcardPattern("a.b")).toBe(false);
  });
});

describe("validation", () => {
  it.each([
    ["order.*", { ok: true }],
    ["*", { ok: true }],
    ["", { ok: false, detail: "event pattern must be a non-empty string" }],
    [42, { ok: false, detail: "event pattern must be a non-empty string" }],
    [
      "order created",
      { ok: false, detail: "event pattern must not contain whitespace or control characters" },
    ],
    ["order\u0000", { ok: false, detail: "event pattern must not contain whitespace or control characters" }],
    ["x".repeat(201), { ok: false, detail: "event pattern is longer than 200 characters" }],
  ])("pattern %j", (pattern, expected) => {
    expect(validateEventPattern(pattern)).toEqual(expected);
  });

  it.each([
    ["agent.stop", { ok: true }],
    ["x".repeat(200), { ok: true }],
    ["order.*", { ok: false, detail: "event name must not contain '*'" }],
    ["a\tb", { ok: false, detail: "event name must not contain whitespace or control characters" }],
    ["", { ok: false, detail: "event name must be a non-empty string" }],
  ])("name %j", (name, expected) => {
    expect(validateEventName(name)).toEqual(expected);
  });

  it.each([
    ["welcome", true],
    ["order.created-v2_x", true],
    ["A", true],
    ["9lives", true],
    ["a".repeat(128), true],
    ["a".repeat(129), false],
    ["", false],
    ["-lead", false],
    [".lead", false],
    ["_lead", false],
    ["has space", false],
    ["slash/no", false],
    ["ünï", false],
    [null, false],
  ])("resource key %j -> %s", (key, expected) => {
    expect(isValidResourceKey(key)).toBe(expected);
  });
});
