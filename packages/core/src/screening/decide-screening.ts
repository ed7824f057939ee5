import { IMPORTANCE_LEVELS, importanceRank, type Importance } from "../policy/importance";
import { SCREENING_UNAVAILABLE, screeningReason } from "../policy/reasons";
import {
  SCREENING_RISKS,
  type ScreeningAnswer,
  type ScreeningSettings,
  type ScreeningVerdict,
  type UrgencyDistribution,
} from "./screening-verdict";

// svc's own decision on a screened message (docs/screening.md "Outcomes"): the model only answers
// with probabilities; this function, pure and table-tested, decides what happens.

/** Detail of the reason when a `critical` claim is not confirmed: `screening: critical not confirmed`. */
export const CRITICAL_NOT_CONFIRMED = "critical not confirmed";

/** What screening learnt about one message. */
export type ScreeningEvidence =
  /** svc's deterministic secret check matched before any model was asked. */
  | { kind: "secret"; rule: string }
  | { kind: "answer"; model: string | null; answer: ScreeningAnswer }
  /** No usable answer (refused, 5xx, timeout, malformed) after the retries. */
  | { kind: "unavailable"; model: string | null; error: string };

export type ScreeningDecision =
  | { action: "hold"; reason: string; verdict: ScreeningVerdict }
  | { action: "send"; importance: Importance; verdict: ScreeningVerdict };

export function decideScreening(
  importance: Importance,
  evidence: ScreeningEvidence,
  settings: ScreeningSettings,
): ScreeningDecision {
  if (evidence.kind === "secret") {
    const verdict = blankVerdict(null, "held");
    verdict.secret_rule = evidence.rule;
    return { action: "hold", reason: screeningReason(["secret"]), verdict };
  }
  if (evidence.kind === "unavailable") {
    const verdict = blankVerdict(evidence.model, "unavailable");
    verdict.error = evidence.error;
    return settings.on_error === "hold"
      ? { action: "hold", reason: screeningReason([SCREENING_UNAVAILABLE]), verdict }
      : { action: "send", importance, verdict };
  }

  const { answer } = evidence;
  const urgency = mostLikelyLevel(answer.urgency);
  const answered = (outcome: ScreeningVerdict["outcome"]): ScreeningVerdict => ({
    ...blankVerdict(evidence.model, outcome),
    risks: { pressure: answer.pressure, deception: answer.deception, secret: answer.secret },
    urgency,
  });
  const sure = urgency.confidence >= settings.min_confidence;

  const holds: string[] = SCREENING_RISKS.filter((risk) => answer[risk] >= settings.hold_above);
  if (importance === "critical" && !(urgency.importance === "critical" && sure)) {
    holds.push(CRITICAL_NOT_CONFIRMED);
  }
  if (holds.length > 0) return { action: "hold", reason: screeningReason(holds), verdict: answered("held") };

  // Lowered only, never raised, and only when the model is sure enough of the lower level.
  if (sure && importanceRank(urgency.importance) < importanceRank(importance)) {
    return {
      action: "send",
      importance: urgency.importance,
      verdict: { ...answered("lowered"), lowered_from: importance },
    };
  }
  return { action: "send", importance, verdict: answered("passed") };
}

/** The level with the highest probability; a tie goes to the more urgent level (never under-rate). */
export function mostLikelyLevel(urgency: UrgencyDistribution): {
  importance: Importance;
  confidence: number;
} {
  let best: Importance = "low";
  for (const level of IMPORTANCE_LEVELS) if (urgency[level] >= urgency[best]) best = level;
  return { importance: best, confidence: urgency[best] };
}

function blankVerdict(model: string | null, outcome: ScreeningVerdict["outcome"]): ScreeningVerdict {
  return {
    model,
    outcome,
    lowered_from: null,
    risks: null,
    urgency: null,
    secret_rule: null,
    error: null,
  };
}
