import type { Importance } from "../policy/importance";

// What screening stores on a message (`messages.screening`, docs/screening.md "The verdict") and
// what a decision model answers. The verdict is written once and reused by every later delivery.

/** The three yes/no questions, in the fixed order a `screening: <risks>` reason lists them. */
export const SCREENING_RISKS = ["pressure", "deception", "secret"] as const;
export type ScreeningRisk = (typeof SCREENING_RISKS)[number];
export type ScreeningRisks = Record<ScreeningRisk, number>;

/** Probability of each importance level for the reader (the urgency question). */
export type UrgencyDistribution = Record<Importance, number>;

/** A model's answer to the four questions, as probabilities in [0, 1]. */
export interface ScreeningAnswer {
  urgency: UrgencyDistribution;
  pressure: number;
  deception: number;
  secret: number;
}

export type ScreeningOutcome = "passed" | "lowered" | "held" | "unavailable";

export interface ScreeningVerdict {
  /** The model that answered; null when no model was asked (the secret check held it first). */
  model: string | null;
  outcome: ScreeningOutcome;
  /** The importance before screening lowered it (only for `lowered`). */
  lowered_from: Importance | null;
  /** The model's yes/no probabilities; null when the model did not answer. */
  risks: ScreeningRisks | null;
  /** The model's most likely level and its probability; null when the model did not answer. */
  urgency: { importance: Importance; confidence: number } | null;
  /** Id of the secret-check rule that matched (never the secret itself); null otherwise. */
  secret_rule: string | null;
  /** Why the model was unavailable (`timeout`, `http 500`, …); null otherwise. */
  error: string | null;
}

export interface ScreeningSettings {
  hold_above: number;
  min_confidence: number;
  on_error: "hold" | "send";
}
