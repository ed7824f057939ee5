import type { TemplateDefinition } from "@svc/core";
import type { TemplateRow } from "@svc/store";

/** A stored template as the renderer takes it. */
export function templateDefinition(row: TemplateRow): TemplateDefinition {
  return {
    key: row.key,
    default_locale: row.default_locale,
    locales: row.locales as unknown as TemplateDefinition["locales"],
    ai_attributes: row.ai_attributes,
  };
}
