import { AppError } from "@svc/core";
import { findApiKey, markApiKeyRevoked, type RootDatabase } from "@svc/store";
import type { ApiKeyCache } from "./api-key-cache";
import { serializeApiKey } from "./serialize-api-key";

/**
 * Revocation takes effect at once: the key cache of this process forgets every row before the
 * answer, and the other processes are told. Repeats are no-ops.
 */
export async function revokeApiKey(
  { prisma, now, apiKeyCache }: { prisma: RootDatabase; now: () => Date; apiKeyCache?: ApiKeyCache },
  id: string,
) {
  await markApiKeyRevoked(prisma, id, now());
  apiKeyCache?.invalidate();
  const row = await findApiKey(prisma, id);
  if (!row) throw new AppError("not_found", `no API key '${id}'`);
  return serializeApiKey(row);
}
