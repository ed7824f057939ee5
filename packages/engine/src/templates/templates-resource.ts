import { validateTemplate, type ValidationIssue } from "@svc/core";
import { templateRows, type RootDatabase, type TemplateFields, type TemplateRow } from "@svc/store";
import { keyedResource } from "../shared/keyed-resource";
import { validationError } from "../shared/validation";

export interface TemplateInput {
  key?: string;
  default_locale?: string;
  locales?: Record<string, unknown>;
  ai_attributes?: string[];
}

export function serializeTemplate(row: TemplateRow) {
  return {
    key: row.key,
    default_locale: row.default_locale,
    locales: row.locales as Record<string, unknown>,
    ai_attributes: row.ai_attributes,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** Templates: admin CRUD; every string is compiled at write time so a typo is a 422 with its line. */
export function templatesResource({ prisma }: { prisma: RootDatabase }) {
  return keyedResource<TemplateRow, TemplateInput, TemplateFields, ReturnType<typeof serializeTemplate>>({
    noun: "template",
    db: prisma,
    rows: templateRows,
    async toFields(input, full, existing) {
      const merged = {
        // A PUT sets what it leaves out back to the default (docs/api.md "Admin resources").
        default_locale: input.default_locale ?? (full ? "en" : (existing?.default_locale ?? "en")),
        locales: input.locales ?? (existing?.locales as Record<string, unknown> | undefined) ?? {},
        ai_attributes: input.ai_attributes ?? (full ? [] : (existing?.ai_attributes ?? [])),
      };
      const issues: ValidationIssue[] = [];
      const check = validateTemplate({ key: "candidate", ...merged } as never);
      // The detail starts with the path, which `loc` already carries: keep the message only.
      if (!check.ok)
        issues.push({
          loc: ["body", ...check.loc],
          msg: check.detail.replace(`${check.loc.join(".")}: `, ""),
          type: "template_error",
        });
      if (issues.length > 0) throw validationError(issues);
      return {
        default_locale: merged.default_locale,
        locales: merged.locales,
        ai_attributes: merged.ai_attributes,
      };
    },
    serialize: serializeTemplate,
  });
}
