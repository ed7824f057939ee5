import type { Importance } from "../../policy/importance";
import { decideScreening, mostLikelyLevel, type ScreeningEvidence } from "../decide-screening";
import type { ScreeningAnswer, UrgencyDistribution } from "../screening-verdict";

// docs/screening.md "Outcomes", as a table: hold_above 0.5, min_confidence 0.6 (the defaults).

const settings = { hold_above: 0.5, min_confidence: 0.6, on_error: "hold" as const };
const calm = { pressure: 0.1, deception: 0.1, secret: 0.1 };
const sure = (level: Importance, p = 0.9): UrgencyDistribution => {
  const rest = (1 - p) / 3;
  return { low: rest, normal: rest, high: rest, critical: rest, [level]: p };
};
const answer = (urgency: UrgencyDistribution, risks: Partial<typeof calm> = {}): ScreeningEvidence => ({
  kind: "answer",
  model: "judge-1",
  answer: { urgency, ...calm, ...risks } as ScreeningAnswer,
});

describe("decideScreening", () => {
  test.each<[string, Importance, ScreeningEvidence, string, string | null, Importance | null]>([
    // name, claimed, evidence, action, reason (hold) , importance sent (send)
    ["calm, urgency as claimed: passed", "normal", answer(sure("normal")), "send", null, "normal"],
    [
      "pressure at hold_above exactly: held",
      "normal",
      answer(sure("normal"), { pressure: 0.5 }),
      "hold",
      "screening: pressure",
      null,
    ],
    [
      "just below hold_above: passed",
      "normal",
      answer(sure("normal"), { pressure: 0.4999 }),
      "send",
      null,
      "normal",
    ],
    [
      "every risk, fixed order",
      "high",
      answer(sure("high"), { secret: 0.7, pressure: 0.9, deception: 0.6 }),
      "hold",
      "screening: pressure, deception, secret",
      null,
    ],
    [
      "deception and secret",
      "normal",
      answer(sure("normal"), { deception: 0.8, secret: 0.55 }),
      "hold",
      "screening: deception, secret",
      null,
    ],
    [
      "critical confirmed at min_confidence exactly: passed",
      "critical",
      answer(sure("critical", 0.6)),
      "send",
      null,
      "critical",
    ],
    [
      "critical just under min_confidence: held",
      "critical",
      answer(sure("critical", 0.59)),
      "hold",
      "screening: critical not confirmed",
      null,
    ],
    [
      "critical claim the model reads as low: held, not lowered",
      "critical",
      answer(sure("low")),
      "hold",
      "screening: critical not confirmed",
      null,
    ],
    [
      "a risk and an unconfirmed critical: both named",
      "critical",
      answer(sure("normal"), { pressure: 0.8 }),
      "hold",
      "screening: pressure, critical not confirmed",
      null,
    ],
    ["sure it is less urgent: lowered", "high", answer(sure("low", 0.7)), "send", null, "low"],
    ["less urgent but not sure enough: passed", "high", answer(sure("normal", 0.55)), "send", null, "high"],
    ["more urgent than claimed: never raised", "low", answer(sure("critical")), "send", null, "low"],
  ])("%s", (_name, claimed, evidence, action, reason, importance) => {
    const decision = decideScreening(claimed, evidence, settings);
    expect(decision.action).toBe(action);
    if (decision.action === "hold") expect(decision.reason).toBe(reason);
    else expect(decision.importance).toBe(importance);
  });

  test("a lowered verdict keeps what was claimed, the risks and the model's level", () => {
    const decision = decideScreening("high", answer(sure("low", 0.7), { pressure: 0.2 }), settings);
    expect(decision).toEqual({
      action: "send",
      importance: "low",
      verdict: {
        model: "judge-1",
        outcome: "lowered",
        lowered_from: "high",
        risks: { pressure: 0.2, deception: 0.1, secret: 0.1 },
        urgency: { importance: "low", confidence: 0.7 },
        secret_rule: null,
        error: null,
      },
    });
  });

  test("held and passed verdicts carry the answer, with no lowered_from", () => {
    const held = decideScreening("normal", answer(sure("normal"), { deception: 0.93 }), settings);
    expect(held.verdict).toMatchObject({ outcome: "held", lowered_from: null, risks: { deception: 0.93 } });
    const passed = decideScreening("normal", answer(sure("high")), settings);
    expect(passed.verdict).toMatchObject({
      outcome: "passed",
      lowered_from: null,
      urgency: { importance: "high" },
    });
  });

  test("the secret check holds without a model: rule recorded, nothing else", () => {
    const decision = decideScreening(
      "normal",
      { kind: "secret", rule: "@secretlint/secretlint-rule-aws" },
      settings,
    );
    expect(decision).toEqual({
      action: "hold",
      reason: "screening: secret",
      verdict: {
        model: null,
        outcome: "held",
        lowered_from: null,
        risks: null,
        urgency: null,
        secret_rule: "@secretlint/secretlint-rule-aws",
        error: null,
      },
    });
  });

  test.each([
    ["hold", "hold"],
    ["send", "send"],
  ] as const)("unavailable with on_error = %s", (onError, action) => {
    const evidence: ScreeningEvidence = { kind: "unavailable", model: "judge-1", error: "timeout" };
    const decision = decideScreening("high", evidence, { ...settings, on_error: onError });
    expect(decision.action).toBe(action);
    if (decision.action === "hold") expect(decision.reason).toBe("screening: screening unavailable");
    else expect(decision.importance).toBe("high");
    expect(decision.verdict).toEqual({
      model: "judge-1",
      outcome: "unavailable",
      lowered_from: null,
      risks: null,
      urgency: null,
      secret_rule: null,
      error: "timeout",
    });
  });

  test("stricter settings: hold_above 0.2 holds what the default passes", () => {
    const evidence = answer(sure("normal"), { pressure: 0.3 });
    expect(decideScreening("normal", evidence, settings).action).toBe("send");
    expect(decideScreening("normal", evidence, { ...settings, hold_above: 0.2 })).toMatchObject({
      action: "hold",
      reason: "screening: pressure",
    });
  });
});

describe("mostLikelyLevel", () => {
  test.each<[UrgencyDistribution, Importance, number]>([
    [{ low: 0.1, normal: 0.6, high: 0.2, critical: 0.1 }, "normal", 0.6],
    [{ low: 0.4, normal: 0.4, high: 0.1, critical: 0.1 }, "normal", 0.4],
    [{ low: 0.25, normal: 0.25, high: 0.25, critical: 0.25 }, "critical", 0.25],
    [{ low: 1, normal: 0, high: 0, critical: 0 }, "low", 1],
  ])("%j → %s", (urgency, level, confidence) => {
    expect(mostLikelyLevel(urgency)).toEqual({ importance: level, confidence });
  });
});
