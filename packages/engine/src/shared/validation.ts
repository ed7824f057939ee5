import {
  AppError,
  formatPeriod,
  invalidPeriodMessage,
  tryParsePeriod,
  type ValidationIssue,
} from "@svc/core";

// Checks that the OpenAPI document cannot express (periods, references to other resources) end
// up as the same 422 shape as the validator's: a detail plus `errors[{loc, msg, type}]`.

export function validationError(issues: ValidationIssue[]): AppError {
  const detail = issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; ");
  return new AppError("validation", detail, { errors: issues });
}

export interface StoredCap {
  period: number;
  limit: number;
}

/** A positive period (ISO 8601 duration or seconds) in seconds; else an issue under `loc`, and 0. */
export function positivePeriod(
  value: string | number,
  loc: (string | number)[],
  issues: ValidationIssue[],
  expected = "expected an ISO 8601 duration or a positive number of seconds",
): number {
  const seconds = tryParsePeriod(value);
  if (seconds === null || seconds === 0) {
    issues.push({ loc, msg: invalidPeriodMessage(value, expected), type: "value_error" });
  }
  return seconds ?? 0;
}

/** `[{period: "P1D" | 86400, limit}]` → seconds, collecting issues under `loc`. */
export function parseCaps(
  input: readonly { period: string | number; limit: number }[],
  loc: (string | number)[],
  issues: ValidationIssue[],
): StoredCap[] {
  const expected = "expected an ISO 8601 duration (PT1H, P1D, P7D) or a positive number of seconds";
  return input.map((cap, index) => ({
    period: positivePeriod(cap.period, [...loc, index, "period"], issues, expected),
    limit: cap.limit,
  }));
}

export const formatCaps = (caps: unknown): { period: string; limit: number }[] =>
  ((caps as StoredCap[] | null) ?? []).map((c) => ({ period: formatPeriod(c.period), limit: c.limit }));
