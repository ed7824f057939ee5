import { hasScope, isScope, type Principal, type Scope } from "./scopes";

// Who may call an operation of the OpenAPI document, read from the operation itself: its
// `security` requirement (the scopes) and `x-svc-agent-keys` (agent-bound keys refused). The REST
// API checks every request with it, and the MCP tools decide with it what a key may see and call,
// so a tool and its REST twin cannot disagree (docs/api.md "Scopes", docs/mcp.md).

export type SecurityRequirement = Record<string, string[]>;

/** The parts of an OpenAPI operation object that say who may call it. */
export interface OperationSecurity {
  security?: SecurityRequirement[];
  "x-svc-agent-keys"?: unknown;
}

export interface OperationAccess {
  /** False for `security: []` (probes, token-authenticated pages) and inbox-token operations. */
  requiresKey: boolean;
  /** Scopes listed for bearerAuth; any one of them is enough (alternative requirements). */
  scopes: string[];
  /** Why agent-bound keys are refused (`x-svc-agent-keys`), or null when they are not. */
  agentKeysRefused: string | null;
}

/** The security scheme of the in-app inbox's feed: an inbox token, never an API key (docs/inbox.md). */
export const INBOX_TOKEN_SCHEME = "inboxToken";

/** Whether the requirement asks for an inbox token (such operations take no API key). */
export const usesInboxToken = (security: readonly SecurityRequirement[]): boolean =>
  security.some((requirement) => Object.hasOwn(requirement, INBOX_TOKEN_SCHEME));

/** The operation's own requirement, else the document's default. */
export function describeOperationAccess(
  operation: OperationSecurity,
  documentSecurity: SecurityRequirement[] = [],
): OperationAccess {
  const security = operation.security ?? documentSecurity;
  return {
    requiresKey:
      security.length > 0 &&
      security.every((requirement) => Object.keys(requirement).length > 0) &&
      !usesInboxToken(security),
    scopes: [...new Set(security.flatMap((requirement) => requirement.bearerAuth ?? []))],
    agentKeysRefused:
      typeof operation["x-svc-agent-keys"] === "string" ? operation["x-svc-agent-keys"] : null,
  };
}

/** Why this key may not call the operation (the 403 detail), or null when it may. */
export function accessDenial(
  principal: Pick<Principal, "scopes" | "agentKey">,
  access: OperationAccess,
): string | null {
  const scopes = access.scopes.filter(isScope);
  if (scopes.includes("admin") && principal.agentKey) return "agent-bound keys cannot use admin endpoints";
  if (access.agentKeysRefused && principal.agentKey) return access.agentKeysRefused;
  if (scopes.length > 0 && !scopes.some((scope: Scope) => hasScope(principal, scope))) {
    return `this API key lacks the scope ${scopes.map((s) => `'${s}'`).join(" or ")}`;
  }
  return null;
}
