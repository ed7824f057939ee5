import { IMPORTANCE_LEVELS } from "../policy/importance";
import type { ScreeningAnswer, UrgencyDistribution } from "./screening-verdict";

// Reads the `http` adapter's answer `{urgency: {low, normal, high, critical}, pressure, deception,
// secret}` (docs/screening.md "The http adapter"). Anything else is a malformed answer, which
// counts as the model being unavailable.

export type ParsedAnswer = { ok: true; answer: ScreeningAnswer } | { ok: false; error: string };

const isProbability = (value: unknown): value is number =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1;

export function parseScreeningAnswer(value: unknown): ParsedAnswer {
  if (typeof value !== "object" || value === null) return malformed("not an object");
  const body = value as Record<string, unknown>;
  for (const risk of ["pressure", "deception", "secret"] as const) {
    if (!isProbability(body[risk])) return malformed(`${risk} is not a probability`);
  }
  const urgency = normalizeUrgency(body.urgency);
  if (!urgency) return malformed("urgency is not four probabilities");
  return {
    ok: true,
    answer: {
      urgency,
      pressure: body.pressure as number,
      deception: body.deception as number,
      secret: body.secret as number,
    },
  };
}

/**
 * Four probabilities, one per level, scaled to sum to 1 (a model's numbers rarely add up exactly,
 * and log-probabilities over four tokens never do). Null when a level is missing or all are 0.
 */
export function normalizeUrgency(value: unknown): UrgencyDistribution | null {
  if (typeof value !== "object" || value === null) return null;
  const levels = value as Record<string, unknown>;
  if (!IMPORTANCE_LEVELS.every((level) => isProbability(levels[level]))) return null;
  const total = IMPORTANCE_LEVELS.reduce((sum, level) => sum + (levels[level] as number), 0);
  if (total <= 0) return null;
  const scaled = (level: (typeof IMPORTANCE_LEVELS)[number]) => (levels[level] as number) / total;
  return { low: scaled("low"), normal: scaled("normal"), high: scaled("high"), critical: scaled("critical") };
}

const malformed = (detail: string): ParsedAnswer => ({ ok: false, error: `malformed answer: ${detail}` });
