import type { ApiKeyRow } from "../../rows";
import { pageArgs, type PageWindow } from "../paging";
import { prismaOf, type Database } from "../../transaction";

/** What authentication reads of a key and its agent. */
export interface ApiKeyAuthRecord {
  id: string;
  name: string;
  scopes: string[];
  agent_key: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  agent: { key: string; enabled: boolean; deleted_at: Date | null } | null;
}

const AUTH_SELECT = {
  id: true,
  name: true,
  scopes: true,
  agent_key: true,
  expires_at: true,
  revoked_at: true,
  agent: { select: { key: true, enabled: true, deleted_at: true } },
} as const;

/** The key whose secret hashes (SHA-256) to `hash`, with its agent's state; null for an unknown key. */
export async function findApiKeyForAuth(db: Database, hash: string): Promise<ApiKeyAuthRecord | null> {
  return prismaOf(db).apiKey.findUnique({ where: { hash }, select: AUTH_SELECT });
}

export async function findApiKey(db: Database, id: string): Promise<ApiKeyRow | null> {
  return prismaOf(db).apiKey.findUnique({ where: { id } });
}

/** Keys newest first (see ../paging.ts). */
export async function findApiKeyPage(db: Database, window: PageWindow): Promise<ApiKeyRow[]> {
  const q = pageArgs(window, "id");
  return prismaOf(db).apiKey.findMany({ where: q.where, orderBy: q.orderBy, take: q.take });
}
