import { AppError, isScope, sha256Hex, type Principal } from "@svc/core";
import { findApiKeyForAuth, type RootDatabase } from "@svc/store";
import type { ApiKeyCache, KeyRecord } from "./api-key-cache";

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const WWW_AUTHENTICATE = { "WWW-Authenticate": 'Bearer realm="svc"' };

const unauthorized = (detail: string) => new AppError("unauthorized", detail, { headers: WWW_AUTHENTICATE });

/**
 * Resolves the Authorization header to a principal: 401 for a missing, unknown, revoked or expired
 * key; 403 when the key's agent is disabled or deleted (docs/api.md, "Authentication").
 */
export async function authenticate(
  { prisma, now, apiKeyCache }: { prisma: RootDatabase; now: () => Date; apiKeyCache?: ApiKeyCache },
  authorization: string | undefined,
): Promise<Principal> {
  if (!authorization) throw unauthorized("missing API key: send 'Authorization: Bearer <key>'");
  const match = BEARER.exec(authorization);
  if (!match) throw unauthorized("malformed Authorization header: expected 'Bearer <key>'");
  const hash = sha256Hex(match[1]!);
  const row: KeyRecord | null = apiKeyCache
    ? await apiKeyCache.lookup(hash)
    : await findApiKeyForAuth(prisma, hash);
  if (!row) throw unauthorized("unknown API key");
  if (row.revoked_at) throw unauthorized("API key revoked");
  if (row.expires_at && row.expires_at.getTime() <= now().getTime()) throw unauthorized("API key expired");
  if (row.agent) {
    if (row.agent.deleted_at) throw new AppError("forbidden", `agent '${row.agent.key}' was deleted`);
    if (!row.agent.enabled) throw new AppError("forbidden", `agent '${row.agent.key}' is disabled`);
  }
  return {
    keyId: row.id,
    keyName: row.name,
    scopes: row.scopes.filter(isScope),
    agentKey: row.agent_key,
  };
}
