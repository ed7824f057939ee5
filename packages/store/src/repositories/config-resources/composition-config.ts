import type { AgentRow, CategoryRow, RuleRow, TemplateRow } from "../../rows";
import { prismaOf, type Database } from "../../transaction";

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

export async function loadRuleConfiguration(db: Database): Promise<RuleConfiguration> {
  const [rules, templates, categories] = await Promise.all([
    prismaOf(db).rule.findMany({ where: { enabled: true } }),
    prismaOf(db).template.findMany(),
    prismaOf(db).category.findMany(),
  ]);
  return { rules, templates, categories };
}

export function findCategory(db: Database, key: string): Promise<CategoryRow | null> {
  return prismaOf(db).category.findUnique({ where: { key } });
}

export function findTemplate(db: Database, key: string): Promise<TemplateRow | null> {
  return prismaOf(db).template.findUnique({ where: { key } });
}

/** The templates with these keys (a batch of direct sends reads them once). */
export function findTemplates(db: Database, keys: readonly string[]): Promise<TemplateRow[]> {
  return prismaOf(db).template.findMany({ where: { key: { in: [...keys] } } });
}

export function findRule(db: Database, key: string): Promise<RuleRow | null> {
  return prismaOf(db).rule.findUnique({ where: { key } });
}

/** The agent row, deleted or not (agents are soft-deleted). */
export function findAgentRow(db: Database, key: string): Promise<AgentRow | null> {
  return prismaOf(db).agent.findUnique({ where: { key } });
}

/** Keys of the categories marked `marketing` (US texting caps count their texts). */
export async function marketingCategoryKeys(db: Database): Promise<string[]> {
  const rows = await prismaOf(db).category.findMany({ where: { marketing: true }, select: { key: true } });
  return rows.map((row) => row.key);
}
