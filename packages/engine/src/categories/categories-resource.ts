import { AppError, formatPeriod, type ValidationIssue } from "@svc/core";
import { categoryRows, type CategoryFields, type CategoryRow, type RootDatabase } from "@svc/store";
import { keyedResource } from "../shared/keyed-resource";
import { formatCaps, parseCaps, positivePeriod, validationError } from "../shared/validation";

/** Category body (docs/policy.md, "Categories"); shapes are checked by the OpenAPI document. */
export interface CategoryInput {
  key?: string;
  description?: string;
  frequency_caps?: { period: string | number; limit: number }[];
  respect_quiet_hours?: boolean;
  allow_unsubscribe?: boolean;
  marketing?: boolean;
  fatigue?: { after: number; pause: string | number } | null;
}

const DEFAULTS: Required<Omit<CategoryInput, "key">> = {
  description: "",
  frequency_caps: [],
  respect_quiet_hours: true,
  allow_unsubscribe: true,
  marketing: false,
  fatigue: null,
};

export function serializeCategory(row: CategoryRow) {
  const fatigue = row.fatigue as { after: number; pause: number } | null;
  return {
    key: row.key,
    description: row.description,
    frequency_caps: formatCaps(row.frequency_caps),
    respect_quiet_hours: row.respect_quiet_hours,
    allow_unsubscribe: row.allow_unsubscribe,
    marketing: row.marketing,
    fatigue: fatigue ? { after: fatigue.after, pause: formatPeriod(fatigue.pause) } : null,
    builtin: row.builtin,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function toFields(input: CategoryInput, full: boolean): CategoryFields {
  const merged = full ? { ...DEFAULTS, ...input } : input;
  const issues: ValidationIssue[] = [];
  const data: CategoryFields = {};
  if (merged.description !== undefined) data.description = merged.description;
  for (const field of ["respect_quiet_hours", "allow_unsubscribe", "marketing"] as const) {
    if (merged[field] !== undefined) data[field] = merged[field];
  }
  if (merged.frequency_caps !== undefined) {
    data.frequency_caps = parseCaps(merged.frequency_caps, ["body", "frequency_caps"], issues);
  }
  if (merged.fatigue !== undefined) {
    if (merged.fatigue === null) data.fatigue = null;
    else {
      const pause = positivePeriod(merged.fatigue.pause, ["body", "fatigue", "pause"], issues);
      data.fatigue = { after: merged.fatigue.after, pause };
    }
  }
  if (issues.length > 0) throw validationError(issues);
  return data;
}

export function categoriesResource({ prisma }: { prisma: RootDatabase }) {
  return keyedResource<CategoryRow, CategoryInput, CategoryFields, ReturnType<typeof serializeCategory>>({
    noun: "category",
    db: prisma,
    rows: categoryRows,
    toFields: async (input, full) => toFields(input, full),
    serialize: serializeCategory,
    beforeDelete(row) {
      if (row.builtin)
        throw new AppError("conflict", `'${row.key}' is a built-in category and cannot be deleted`);
    },
  });
}
