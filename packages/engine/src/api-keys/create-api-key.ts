import {
  AppError,
  apiKeyDisplayPrefix,
  generateApiKeySecret,
  isScope,
  newId,
  sha256Hex,
  type Scope,
} from "@svc/core";
import { findAgentRow, insertApiKey, type RootDatabase } from "@svc/store";
import { serializeApiKey, type ApiKeyView } from "./serialize-api-key";

export interface CreateApiKeyInput {
  name: string;
  scopes: string[];
  agent?: string | null;
  expires_at?: string | Date | null;
}

/**
 * Creates a key and returns its secret once. Used by POST /v1/api-keys and by `svcctl keys create`
 * (which bootstraps the first admin key straight against the database).
 */
export async function createApiKey(
  { prisma, now }: { prisma: RootDatabase; now: () => Date },
  input: CreateApiKeyInput,
): Promise<ApiKeyView & { key: string }> {
  const scopes = [...new Set(input.scopes)];
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0) {
    throw new AppError("validation", `scopes: unknown scope ${unknown.map((s) => `'${s}'`).join(", ")}`, {
      errors: unknown.map((s) => ({ loc: ["body", "scopes"], msg: `unknown scope '${s}'`, type: "enum" })),
    });
  }
  if (input.agent && scopes.includes("admin")) {
    throw new AppError("unprocessable", "an agent-bound key cannot hold the admin scope", {
      errors: [
        { loc: ["body", "scopes"], msg: "admin is not allowed for agent-bound keys", type: "value_error" },
      ],
    });
  }
  const expiresAt = input.expires_at ? new Date(input.expires_at) : null;
  if (expiresAt && expiresAt.getTime() <= now().getTime()) {
    throw new AppError("validation", "expires_at: must be in the future", {
      errors: [{ loc: ["body", "expires_at"], msg: "must be in the future", type: "value_error" }],
    });
  }
  if (input.agent) {
    const agent = await findAgentRow(prisma, input.agent);
    if (!agent || agent.deleted_at) {
      throw new AppError("validation", `agent: no agent '${input.agent}'`, {
        errors: [{ loc: ["body", "agent"], msg: `no agent '${input.agent}'`, type: "value_error" }],
      });
    }
  }
  const secret = generateApiKeySecret();
  const row = await insertApiKey(prisma, {
    id: newId("apiKey"),
    name: input.name,
    prefix: apiKeyDisplayPrefix(secret),
    hash: sha256Hex(secret),
    scopes: scopes as Scope[],
    agent_key: input.agent ?? null,
    expires_at: expiresAt,
    created_at: now(),
  });
  return { ...serializeApiKey(row), key: secret };
}
