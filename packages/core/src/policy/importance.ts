// Importance levels in ascending order (docs/policy.md, "Importance").

export const IMPORTANCE_LEVELS = ["low", "normal", "high", "critical"] as const;
export type Importance = (typeof IMPORTANCE_LEVELS)[number];

export function isImportance(value: unknown): value is Importance {
  return typeof value === "string" && (IMPORTANCE_LEVELS as readonly string[]).includes(value);
}

/** low 0, normal 1, high 2, critical 3. */
export function importanceRank(level: Importance): number {
  return IMPORTANCE_LEVELS.indexOf(level);
}

/** Negative, zero or positive like a sort comparator. */
export function compareImportance(a: Importance, b: Importance): number {
  return importanceRank(a) - importanceRank(b);
}

/** The claimed level, lowered to `max` when above it (agents' `max_importance`, screening). Never raises. */
export function lowerImportance(claimed: Importance, max: Importance): Importance {
  return importanceRank(claimed) > importanceRank(max) ? max : claimed;
}
