import type { ValidationIssue } from "@svc/core";
import {
  findCategories,
  findRecipientIds,
  findTemplates,
  type CategoryRow,
  type Database,
  type TemplateRow,
} from "@svc/store";
import { validationError } from "../shared/validation";

// What a direct send names must exist before any policy runs (docs/messages.md "Direct sends"):
// the person, the template and the category; a missing one is 422 `not_found` at its field. Read
// for several sends at once, in three statements.

export interface SendReferences {
  recipient: string;
  template: string;
  category: string;
}

export interface KnownReferences {
  /** Internal ids by external id. */
  recipientIds: Map<string, string>;
  templates: TemplateRow[];
  categories: CategoryRow[];
}

export async function readReferences(
  db: Database,
  sends: readonly SendReferences[],
): Promise<KnownReferences> {
  const unique = (values: string[]) => [...new Set(values)];
  const [recipientIds, templates, categories] = await Promise.all([
    findRecipientIds(db, unique(sends.map((s) => s.recipient))),
    findTemplates(db, unique(sends.map((s) => s.template))),
    findCategories(db, unique(sends.map((s) => s.category))),
  ]);
  return { recipientIds, templates, categories };
}

/** The send's internal recipient id, or throws the 422 naming every missing reference. */
export function recipientIdOrRefusal(send: SendReferences, known: KnownReferences): string {
  const recipientId = known.recipientIds.get(send.recipient) ?? null;
  const issues: ValidationIssue[] = [];
  const missing = (field: keyof SendReferences, what: string) =>
    issues.push({ loc: ["body", field], msg: `no ${what} '${send[field]}'`, type: "not_found" });
  if (recipientId === null) missing("recipient", "recipient");
  if (!known.templates.some((t) => t.key === send.template)) missing("template", "template");
  if (!known.categories.some((c) => c.key === send.category)) missing("category", "category");
  if (issues.length > 0 || recipientId === null) throw validationError(issues);
  return recipientId;
}
