import { AppError } from "@svc/core";
import type { PrismaClient } from "@svc/store";
import { pageQuery, toPage, type PageRequest } from "../shared/paging";
import { serializeApiKey } from "./serialize-api-key";

export async function listApiKeys({ prisma }: { prisma: PrismaClient }, request: PageRequest) {
  const q = pageQuery(request, "id");
  const rows = await prisma.apiKey.findMany({ where: q.where, orderBy: q.orderBy, take: q.take });
  return toPage(rows, q.limit, (row) => row.id, serializeApiKey);
}

export async function getApiKey({ prisma }: { prisma: PrismaClient }, id: string) {
  const row = await prisma.apiKey.findUnique({ where: { id } });
  if (!row) throw new AppError("not_found", `no API key '${id}'`);
  return serializeApiKey(row);
}
