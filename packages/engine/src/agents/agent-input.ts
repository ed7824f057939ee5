import { validateCondition, type Importance, type ValidationIssue } from "@svc/core";
import { findCategoryKeys, type RootDatabase } from "@svc/store";
import { parseCaps, validationError, type StoredCap } from "../shared/validation";

/** Agent fields as the API takes them (docs/agents.md, "Fields"); shapes are checked by OpenAPI. */
export interface AgentInput {
  key?: string;
  name?: string;
  description?: string;
  categories?: string[] | null;
  frequency_caps?: { period: string | number; limit: number }[];
  max_importance?: Importance;
  approval?: unknown;
  approval_ttl_seconds?: number;
  reviewers?: string[];
  enabled?: boolean;
}

export interface AgentData {
  name?: string;
  description?: string;
  categories?: string[] | null;
  frequency_caps?: StoredCap[];
  max_importance?: Importance;
  approval?: unknown;
  approval_ttl_seconds?: number;
  reviewers?: string[];
  enabled?: boolean;
}

/** Checks what OpenAPI cannot: periods, the approval condition, and that named categories exist. */
export async function validateAgentInput(prisma: RootDatabase, input: AgentInput): Promise<AgentData> {
  const issues: ValidationIssue[] = [];
  const data: AgentData = {};
  if (input.name !== undefined) data.name = input.name;
  if (input.description !== undefined) data.description = input.description;
  if (input.max_importance !== undefined) data.max_importance = input.max_importance;
  if (input.approval_ttl_seconds !== undefined) data.approval_ttl_seconds = input.approval_ttl_seconds;
  if (input.reviewers !== undefined) data.reviewers = [...new Set(input.reviewers)];
  if (input.enabled !== undefined) data.enabled = input.enabled;
  if (input.frequency_caps !== undefined)
    data.frequency_caps = parseCaps(input.frequency_caps, ["body", "frequency_caps"], issues);
  if (input.approval !== undefined && input.approval !== null && input.approval !== true) {
    const check = validateCondition(input.approval);
    if (!check.ok) issues.push({ loc: ["body", "approval"], msg: check.detail, type: "value_error" });
  }
  if (input.approval !== undefined) data.approval = input.approval;
  if (input.categories !== undefined) {
    data.categories = input.categories === null ? null : [...new Set(input.categories)];
    if (data.categories) {
      const known = new Set(await findCategoryKeys(prisma, data.categories));
      data.categories.forEach((key, index) => {
        if (!known.has(key))
          issues.push({
            loc: ["body", "categories", index],
            msg: `no category '${key}'`,
            type: "value_error",
          });
      });
    }
  }
  if (issues.length > 0) throw validationError(issues);
  return data;
}
