import { AppError } from "@svc/core";
import type { PrismaClient } from "@svc/store";
import type { ApiKeyCache } from "./api-key-cache";
import { serializeApiKey } from "./serialize-api-key";

/**
 * Revocation takes effect at once: the key cache of this process forgets every row before the
 * answer, and the other processes are told. Repeats are no-ops.
 */
export async function revokeApiKey(
  { prisma, now, apiKeyCache }: { prisma: PrismaClient; now: () => Date; apiKeyCache?: ApiKeyCache },
  id: string,
) {
  await prisma.apiKey.updateMany({ where: { id, revoked_at: null }, data: { revoked_at: now() } });
  apiKeyCache?.invalidate();
  const row = await prisma.apiKey.findUnique({ where: { id } });
  if (!row) throw new AppError("not_found", `no API key '${id}'`);
  return serializeApiKey(row);
}
