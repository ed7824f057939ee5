import type { ApiKeyRow } from "../../rows";
import { prismaOf, type Database } from "../../transaction";

/** A new key: the secret itself is never stored, only its display prefix and SHA-256. */
export interface NewApiKey {
  id: string;
  name: string;
  prefix: string;
  hash: string;
  scopes: ApiKeyRow["scopes"];
  agent_key: string | null;
  expires_at: Date | null;
  created_at: Date;
}

export async function insertApiKey(db: Database, key: NewApiKey): Promise<ApiKeyRow> {
  return prismaOf(db).apiKey.create({ data: key });
}

/** Compare-and-set on "not revoked yet": true when this call revoked the key. */
export async function markApiKeyRevoked(db: Database, id: string, at: Date): Promise<boolean> {
  const stillLive = { id, revoked_at: null };
  const { count } = await prismaOf(db).apiKey.updateMany({ where: stillLive, data: { revoked_at: at } });
  return count === 1;
}
