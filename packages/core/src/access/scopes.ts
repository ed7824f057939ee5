// API key scopes; `admin` implies every other scope (docs/api.md, "Scopes").

export const SCOPES = [
  "events:write",
  "messages:read",
  "messages:write",
  "recipients:read",
  "recipients:write",
  "admin",
] as const;

export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** Who is calling: resolved from the bearer key on every request. */
export interface Principal {
  keyId: string;
  keyName: string;
  scopes: readonly Scope[];
  /** Set when the key is bound to an agent; such keys are limited further (docs/agents.md). */
  agentKey: string | null;
}

export function hasScope(principal: Pick<Principal, "scopes">, scope: Scope): boolean {
  return principal.scopes.includes("admin") || principal.scopes.includes(scope);
}

/** Idempotency keys and dedup are scoped per sender: the agent, or the literal `backend`. */
export const senderOf = (principal: Pick<Principal, "agentKey">): string => principal.agentKey ?? "backend";
