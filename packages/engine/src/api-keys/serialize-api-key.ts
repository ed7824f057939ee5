import type { ApiKeyRow } from "@svc/store";

/** The API shape of a key. The secret itself is never stored, so it can never be shown again. */
export function serializeApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    agent: row.agent_key,
    expires_at: row.expires_at?.toISOString() ?? null,
    revoked_at: row.revoked_at?.toISOString() ?? null,
    last_used_at: row.last_used_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

export type ApiKeyView = ReturnType<typeof serializeApiKey>;
