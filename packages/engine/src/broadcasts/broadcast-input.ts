import { validateCondition, type Importance, type ValidationIssue } from "@svc/core";
import { findCategory, findTemplate, type Prisma, type Database } from "@svc/store";
import { validationError } from "../shared/validation";

// The broadcast body (docs/broadcasts.md "Creating one"); the OpenAPI document checked its shape,
// this checks what it cannot: that the template and category exist and the filter is JSON Logic.

export type BroadcastAudienceInput = { recipients: string[] } | { filter: unknown };

export interface BroadcastInput {
  name: string;
  template: string;
  category: string;
  channels: string[];
  importance?: Importance;
  data?: Record<string, unknown>;
  audience: BroadcastAudienceInput;
  send_at?: string | null;
  rate_per_second?: number | null;
}

export type BroadcastPatchInput = Partial<BroadcastInput>;

/** What the row keeps of the audience: the filter, or how many ids the list held. */
type StoredAudience = { filter: unknown } | { recipient_count: number };

export interface PreparedAudience {
  stored: StoredAudience;
  /** The listed ids, repeats removed, in order; null for a filter. */
  members: string[] | null;
}

export function prepareAudience(audience: BroadcastAudienceInput): PreparedAudience {
  if ("filter" in audience) return { stored: { filter: audience.filter }, members: null };
  const members = [...new Set(audience.recipients)];
  return { stored: { recipient_count: members.length }, members };
}

export function isFilterAudience(stored: unknown): stored is { filter: unknown } {
  return typeof stored === "object" && stored !== null && "filter" in stored;
}

/** 422 for a template or category that does not exist, or a filter that is not JSON Logic. */
export async function checkBroadcastInput(db: Database, input: BroadcastPatchInput): Promise<void> {
  const issues: ValidationIssue[] = [];
  const [template, category] = await Promise.all([
    input.template === undefined ? true : findTemplate(db, input.template),
    input.category === undefined ? true : findCategory(db, input.category),
  ]);
  if (!template)
    issues.push({ loc: ["body", "template"], msg: `no template '${input.template}'`, type: "not_found" });
  if (!category)
    issues.push({ loc: ["body", "category"], msg: `no category '${input.category}'`, type: "not_found" });
  if (input.audience && "filter" in input.audience) {
    const check = validateCondition(input.audience.filter);
    if (!check.ok)
      issues.push({
        loc: ["body", "audience", "filter", ...check.loc],
        msg: check.detail,
        type: "value_error",
      });
  }
  if (issues.length > 0) throw validationError(issues);
}

/** Row fields of a body (given fields only, for a PATCH). */
export function broadcastFieldsOf(input: BroadcastPatchInput, audience: PreparedAudience | null) {
  return {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.template !== undefined && { template: input.template }),
    ...(input.category !== undefined && { category: input.category }),
    ...(input.channels !== undefined && { channels: input.channels }),
    ...(input.importance !== undefined && { importance: input.importance }),
    ...(input.data !== undefined && { data: input.data as Prisma.InputJsonValue }),
    ...(audience && { audience: audience.stored as Prisma.InputJsonValue }),
    ...(input.send_at !== undefined && { send_at: input.send_at ? new Date(input.send_at) : null }),
    ...(input.rate_per_second !== undefined && { rate_per_second: input.rate_per_second }),
  };
}
