import { AppError } from "@svc/core";
import { findApiKey, findApiKeyPage, type RootDatabase } from "@svc/store";
import { pageWindow, toPage, type PageRequest } from "../shared/paging";
import { serializeApiKey } from "./serialize-api-key";

export async function listApiKeys({ prisma }: { prisma: RootDatabase }, request: PageRequest) {
  const window = pageWindow(request);
  const rows = await findApiKeyPage(prisma, window);
  return toPage(rows, window, (row) => row.id, serializeApiKey);
}

export async function getApiKey({ prisma }: { prisma: RootDatabase }, id: string) {
  const row = await findApiKey(prisma, id);
  if (!row) throw new AppError("not_found", `no API key '${id}'`);
  return serializeApiKey(row);
}
