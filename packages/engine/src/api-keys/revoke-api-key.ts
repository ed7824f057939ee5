import { AppError } from "@svc/core";
import type { PrismaClient } from "@svc/store";
import { serializeApiKey } from "./serialize-api-key";

/** Revocation takes effect at once: every request looks its key up in Postgres. Repeats are no-ops. */
export async function revokeApiKey({ prisma, now }: { prisma: PrismaClient; now: () => Date }, id: string) {
  await prisma.apiKey.updateMany({ where: { id, revoked_at: null }, data: { revoked_at: now() } });
  const row = await prisma.apiKey.findUnique({ where: { id } });
  if (!row) throw new AppError("not_found", `no API key '${id}'`);
  return serializeApiKey(row);
}
