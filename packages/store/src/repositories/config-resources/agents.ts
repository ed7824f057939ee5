import type { AgentRow } from "../../rows";
import { keyedRows, type StoredCapColumn } from "./keyed-rows";
import { prismaOf, type Database } from "../../transaction";

export interface AgentFields {
  name?: string;
  description?: string;
  /** null: any category. */
  categories?: string[] | null;
  frequency_caps?: StoredCapColumn[];
  max_importance?: AgentRow["max_importance"];
  /** A JSON Logic condition or `true`; null: never held for approval. */
  approval?: unknown;
  approval_ttl_seconds?: number;
  reviewers?: string[];
  enabled?: boolean;
}

/** Lists leave deleted agents out; `find` still sees them (their keys cannot be reused). */
export const agentRows = keyedRows<AgentRow, AgentFields>({
  table: (db) => prismaOf(db).agent,
  jsonColumns: { nullable: ["categories", "approval"], notNull: ["frequency_caps"] },
  visible: { deleted_at: null },
});

/** Deleting an agent is soft: the row stays for attribution. True when this call deleted it. */
export async function softDeleteAgent(db: Database, key: string, at: Date): Promise<boolean> {
  const { count } = await prismaOf(db).agent.updateMany({
    where: { key, deleted_at: null },
    data: { deleted_at: at },
  });
  return count === 1;
}
