import type { AgentRow, CategoryRow, RuleRow, TemplateRow } from "../../rows";
import type { PrismaClientOrTransaction } from "../../transaction";

// What rule matching and composition read of the configuration: rules, templates, categories and
// agents, one by one or all at once (ingest keeps a per-process copy, see
// packages/engine/src/ingest/ingest-config-cache.ts).

/**
 * SQL expression for a fingerprint of rules, templates and categories: count and hash sum of
 * (key, row version) per table. `xmin` changes on every UPDATE, so any committed edit changes it.
 */
export const CONFIG_VERSION_SQL = ["rules", "templates", "categories"]
  .map(
    (table) =>
      `(SELECT count(*)::text || '.' || coalesce(sum(hashtextextended(key || '/' || xmin::text, 0)), 0)::text FROM ${table})`,
  )
  .join(" || ':' || ");

export interface RuleConfiguration {
  /** Enabled rules only (disabled ones never match). */
  rules: RuleRow[];
  templates: TemplateRow[];
  categories: CategoryRow[];
}

export async function loadRuleConfiguration(db: PrismaClientOrTransaction): Promise<RuleConfiguration> {
  const [rules, templates, categories] = await Promise.all([
    db.rule.findMany({ where: { enabled: true } }),
    db.template.findMany(),
    db.category.findMany(),
  ]);
  return { rules, templates, categories };
}

export function findCategory(db: PrismaClientOrTransaction, key: string): Promise<CategoryRow | null> {
  return db.category.findUnique({ where: { key } });
}

export function findTemplate(db: PrismaClientOrTransaction, key: string): Promise<TemplateRow | null> {
  return db.template.findUnique({ where: { key } });
}

/** The templates with these keys (a batch of direct sends reads them once). */
export function findTemplates(
  db: PrismaClientOrTransaction,
  keys: readonly string[],
): Promise<TemplateRow[]> {
  return db.template.findMany({ where: { key: { in: [...keys] } } });
}

export function findRule(db: PrismaClientOrTransaction, key: string): Promise<RuleRow | null> {
  return db.rule.findUnique({ where: { key } });
}

/** The agent row, deleted or not (agents are soft-deleted). */
export function findAgentRow(db: PrismaClientOrTransaction, key: string): Promise<AgentRow | null> {
  return db.agent.findUnique({ where: { key } });
}

/** Keys of the categories marked `marketing` (US texting caps count their texts). */
export async function marketingCategoryKeys(db: PrismaClientOrTransaction): Promise<string[]> {
  const rows = await db.category.findMany({ where: { marketing: true }, select: { key: true } });
  return rows.map((row) => row.key);
}
