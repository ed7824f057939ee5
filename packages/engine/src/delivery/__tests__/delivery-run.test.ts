import { planRetry, runStateOf, tryOutcome, type StoredAttempt } from "../delivery-run";

const at = (s: number) => new Date(Date.UTC(2024, 0, 15, 12, 0, s));
const attempt = (
  channel: string,
  s: number,
  outcome: "ok" | "retry" | "permanent",
  error = `${channel} failed`,
): StoredAttempt => ({
  channel,
  at: at(s),
  ok: outcome === "ok",
  retryable: outcome === "retry",
  error: outcome === "ok" ? null : error,
});

describe("tryOutcome", () => {
  test.each([
    [["ok"], "sent"],
    [["permanent", "ok"], "sent"],
    [["permanent", "retry"], "retry"],
    [["permanent", "permanent"], "permanent"],
  ] as const)("%j -> %s", (outcomes, expected) => {
    expect(tryOutcome(outcomes.map((o, i) => attempt("sms", i, o)))).toBe(expected);
  });
});

describe("runStateOf", () => {
  test("counts channel tries that ended in a retry, keeps permanent failures per channel, finds the first attempt", () => {
    const state = runStateOf([
      attempt("email", 9, "retry"),
      attempt("sms", 1, "permanent", "webhook 400"),
      attempt("sms", 1, "permanent", "webhook 404"),
      attempt("email", 2, "retry"),
      // two devices in one try that ended in a retry count once
      attempt("push", 5, "retry"),
      attempt("push", 5, "permanent"),
    ]);
    expect(state).toEqual({
      failedChannels: new Map([["sms", "webhook 400, webhook 404"]]),
      retries: 3,
      firstAttemptAt: at(1),
    });
  });

  test("an empty run", () => {
    expect(runStateOf([])).toEqual({ failedChannels: new Map(), retries: 0, firstAttemptAt: null });
  });
});

describe("planRetry", () => {
  const base = {
    now: at(10),
    firstAttemptAt: at(0),
    retryAfterMs: undefined,
    baseMs: 1000,
    maxAttempts: 4,
    maxDeferSeconds: 3600,
    random: 0,
  };
  test.each([
    ["first retry, no jitter: base", { retries: 1 }, { kind: "retry", at: at(11) }],
    ["third retry doubles twice", { retries: 3 }, { kind: "retry", at: at(14) }],
    [
      "full jitter halves the wait",
      { retries: 3, random: 0.9999 },
      { kind: "retry", at: new Date(at(10).getTime() + 2000) },
    ],
    [
      "Retry-After longer than the backoff wins",
      { retries: 1, retryAfterMs: 30_000 },
      { kind: "retry", at: at(40) },
    ],
    [
      "Retry-After shorter than the backoff is not sooner",
      { retries: 3, retryAfterMs: 500 },
      { kind: "retry", at: at(14) },
    ],
    ["max_attempts tries made: give up", { retries: 4 }, { kind: "give_up", at: at(18) }],
    [
      "beyond max_defer_seconds from the first attempt: give up",
      { retries: 1, maxDeferSeconds: 10 },
      { kind: "give_up", at: at(11) },
    ],
    [
      "exactly at max_defer_seconds still retries",
      { retries: 1, maxDeferSeconds: 11 },
      { kind: "retry", at: at(11) },
    ],
  ] as const)("%s", (_name, input, expected) => {
    expect(planRetry({ ...base, ...input })).toEqual(expected);
  });
});
