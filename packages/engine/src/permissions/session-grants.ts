import type { Principal } from "@svc/core";
import { activeSessionGrants, endSessionGrants } from "@svc/store";
import type { EngineDeps } from "../deps";

// "Allow for this session" as the hook reads it (docs/hooks.md "Allow for this session"):
// GET /v1/session-grants/{session_id} lists the rules reviewers allowed for the rest of a session,
// DELETE ends them (the hook does when the session ends). A caller sees only its own: an agent key
// its agent's, a key bound to no agent the grants of requests it made itself.

interface SessionGrantItem {
  id: string;
  rules: string[];
  approval_id: string;
  granted_by: string;
  created_at: string;
  expires_at: string;
}

export interface SessionGrantsView {
  session_id: string;
  /** Every rule allowed for the session (the union of `grants`), in the order they were granted. */
  rules: string[];
  grants: SessionGrantItem[];
}

/** Whose grants a key reads: its agent's, or its own when bound to none. */
export const grantOwnerOfPrincipal = (principal: Pick<Principal, "agentKey" | "keyId">): string =>
  principal.agentKey ?? `key:${principal.keyId}`;

export async function listSessionGrants(
  deps: Pick<EngineDeps, "prisma" | "now">,
  principal: Principal,
  sessionId: string,
): Promise<SessionGrantsView> {
  const rows = await activeSessionGrants(
    deps.prisma,
    grantOwnerOfPrincipal(principal),
    sessionId,
    deps.now(),
  );
  return {
    session_id: sessionId,
    rules: [...new Set(rows.flatMap((row) => row.rules))],
    grants: rows.map((row) => ({
      id: row.id,
      rules: row.rules,
      approval_id: row.approval_id,
      granted_by: row.granted_by,
      created_at: row.created_at.toISOString(),
      expires_at: row.expires_at.toISOString(),
    })),
  };
}

/** The session ended: its grants go. Returns how many. */
export function endSessionGrantsOf(
  deps: Pick<EngineDeps, "prisma">,
  principal: Principal,
  sessionId: string,
): Promise<number> {
  return endSessionGrants(deps.prisma, grantOwnerOfPrincipal(principal), sessionId);
}
