import { approvalStatusAt, checkDecision, linkDecider, retryAfterSeconds } from "../held-items";

const NOW = new Date("2026-05-01T12:00:00Z");
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

test.each([
  [{ waiting: true, deadline: at(1) }, { ok: true }],
  [
    { waiting: true, deadline: at(0) },
    { ok: false, why: "expired" },
  ],
  [
    { waiting: true, deadline: at(-60) },
    { ok: false, why: "expired" },
  ],
  [
    { waiting: false, deadline: at(60) },
    { ok: false, why: "not_waiting" },
  ],
  [
    { waiting: false, deadline: at(-60) },
    { ok: false, why: "not_waiting" },
  ],
])("checkDecision(%j)", (item, expected) => {
  expect(checkDecision(item, NOW)).toEqual(expected);
});

test.each([
  ["pending", 1, "pending"],
  ["pending", 0, "expired"],
  ["pending", -1, "expired"],
  ["approved", -1, "approved"],
  ["rejected", -100, "rejected"],
  ["expired", 100, "expired"],
])("a request %s with %i s left reads as %s", (status, seconds, expected) => {
  expect(approvalStatusAt({ status, expires_at: at(seconds) }, NOW)).toBe(expected);
});

test.each([
  [null, 60],
  [at(0.2), 1],
  [at(-5), 1],
  [at(90.1), 91],
  [at(3600), 3600],
])("retry after the deadline %s: %i s", (deadline, expected) => {
  expect(retryAfterSeconds(deadline, NOW)).toBe(expected);
});

test("a link's decider names the reviewer", () => {
  expect(linkDecider("ada")).toBe("link:ada");
});
