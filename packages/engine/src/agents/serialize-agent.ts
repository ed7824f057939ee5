import type { AgentRow } from "@svc/store";
import { formatCaps } from "../shared/validation";

export function serializeAgent(row: AgentRow) {
  return {
    key: row.key,
    name: row.name,
    description: row.description,
    categories: (row.categories as string[] | null) ?? null,
    frequency_caps: formatCaps(row.frequency_caps),
    max_importance: row.max_importance,
    approval: row.approval ?? null,
    approval_ttl_seconds: row.approval_ttl_seconds,
    reviewers: row.reviewers,
    enabled: row.enabled,
    deleted_at: row.deleted_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
