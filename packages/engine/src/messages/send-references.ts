import type { ValidationIssue } from "@svc/core";
import { findSendReferences, type CategoryRow, type RootDatabase, type TemplateRow } from "@svc/store";
import { validationError } from "../shared/validation";

// What a direct send names must exist before any policy runs (docs/messages.md "Direct sends"):
// the person, the template and the category; a missing one is 422 `not_found` at its field. Read
// for several sends at once, in one statement.

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
  db: RootDatabase,
  sends: readonly SendReferences[],
): Promise<KnownReferences> {
  const unique = (values: string[]) => [...new Set(values)];
  return findSendReferences(db, {
    recipients: unique(sends.map((s) => s.recipient)),
    templates: unique(sends.map((s) => s.template)),
    categories: unique(sends.map((s) => s.category)),
  });
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
