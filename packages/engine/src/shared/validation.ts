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

/** `[{period: "P1D" | 86400, limit}]` → seconds, collecting issues under `loc`. */
export function parseCaps(
  input: readonly { period: string | number; limit: number }[],
  loc: (string | number)[],
  issues: ValidationIssue[],
): StoredCap[] {
  return input.map((cap, index) => {
    const period = tryParsePeriod(cap.period);
    if (period === null || period === 0) {
      issues.push({
        loc: [...loc, index, "period"],
        msg: invalidPeriodMessage(
          cap.period,
          "expected an ISO 8601 duration (PT1H, P1D, P7D) or a positive number of seconds",
        ),
        type: "value_error",
      });
    }
    return { period: period ?? 0, limit: cap.limit };
  });
}

export const formatCaps = (caps: unknown): { period: string; limit: number }[] =>
  ((caps as StoredCap[] | null) ?? []).map((c) => ({ period: formatPeriod(c.period), limit: c.limit }));
