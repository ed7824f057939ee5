import { AppError } from "@svc/core";
import { pageArgs, type PrismaClient } from "@svc/store";
import { pageWindow, toPage, type PageRequest } from "../shared/paging";
import { serializeApiKey } from "./serialize-api-key";

export async function listApiKeys({ prisma }: { prisma: PrismaClient }, request: PageRequest) {
  const window = pageWindow(request);
  const q = pageArgs(window, "id");
  const rows = await prisma.apiKey.findMany({ where: q.where, orderBy: q.orderBy, take: q.take });
  return toPage(rows, window, (row) => row.id, serializeApiKey);
}

export async function getApiKey({ prisma }: { prisma: PrismaClient }, id: string) {
  const row = await prisma.apiKey.findUnique({ where: { id } });
  if (!row) throw new AppError("not_found", `no API key '${id}'`);
  return serializeApiKey(row);
}
