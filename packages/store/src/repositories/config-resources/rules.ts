import type { RuleRow } from "../../rows";
import { keyedRows } from "./keyed-rows";
import { prismaOf, type Database } from "../../transaction";

export interface RuleFields {
  name?: string;
  event?: string;
  template?: string;
  category?: string;
  channels?: string[];
  importance?: RuleRow["importance"];
  /** The stored digest policy; null: no digest. */
  digest?: object | null;
  /** A JSON Logic condition; null: none. */
  condition?: unknown;
  delay_seconds?: number | null;
  cooldown_seconds?: number | null;
  expires_in_seconds?: number | null;
  rollout_percent?: number;
  priority?: number;
  stop_processing?: boolean;
  enabled?: boolean;
}

export const ruleRows = keyedRows<RuleRow, RuleFields>({
  table: (db) => prismaOf(db).rule,
  jsonColumns: { nullable: ["digest", "condition"] },
});

/** Every rule's key. */
export async function listRuleKeys(db: Database): Promise<string[]> {
  const rules = await prismaOf(db).rule.findMany({ select: { key: true } });
  return rules.map((r) => r.key);
}
