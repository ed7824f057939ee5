import { normalizeUrgency, parseScreeningAnswer } from "../parse-answer";

const urgency = { low: 0.1, normal: 0.7, high: 0.15, critical: 0.05 };
const good = { urgency, pressure: 0.2, deception: 0, secret: 1 };

describe("parseScreeningAnswer", () => {
  test("a complete answer is read as it is", () => {
    expect(parseScreeningAnswer(good)).toEqual({ ok: true, answer: good });
  });

  test("extra fields are ignored", () => {
    expect(parseScreeningAnswer({ ...good, model: "x", note: "hi" })).toEqual({ ok: true, answer: good });
  });

  test.each<[string, unknown, string]>([
    ["null", null, "malformed answer: not an object"],
    ["a string", "yes", "malformed answer: not an object"],
    ["pressure missing", { ...good, pressure: undefined }, "malformed answer: pressure is not a probability"],
    ["deception as text", { ...good, deception: "0.2" }, "malformed answer: deception is not a probability"],
    ["secret above 1", { ...good, secret: 1.2 }, "malformed answer: secret is not a probability"],
    ["pressure negative", { ...good, pressure: -0.1 }, "malformed answer: pressure is not a probability"],
    [
      "urgency missing",
      { ...good, urgency: undefined },
      "malformed answer: urgency is not four probabilities",
    ],
    [
      "urgency without critical",
      { ...good, urgency: { low: 0.5, normal: 0.5, high: 0 } },
      "malformed answer: urgency is not four probabilities",
    ],
    [
      "urgency all zero",
      { ...good, urgency: { low: 0, normal: 0, high: 0, critical: 0 } },
      "malformed answer: urgency is not four probabilities",
    ],
    [
      "urgency NaN",
      { ...good, urgency: { ...urgency, high: Number.NaN } },
      "malformed answer: urgency is not four probabilities",
    ],
  ])("%s is malformed", (_name, value, error) => {
    expect(parseScreeningAnswer(value)).toEqual({ ok: false, error });
  });
});

test("normalizeUrgency scales the four levels to sum to 1", () => {
  expect(normalizeUrgency({ low: 0.2, normal: 0.2, high: 0.2, critical: 0.4 })).toEqual({
    low: 0.2,
    normal: 0.2,
    high: 0.2,
    critical: 0.4,
  });
  expect(normalizeUrgency({ low: 0.1, normal: 0.1, high: 0, critical: 0 })).toEqual({
    low: 0.5,
    normal: 0.5,
    high: 0,
    critical: 0,
  });
});
