import type { AgentRow, CategoryRow, RuleRow, TemplateRow } from "../../rows";
import { prismaOf, sqlOf, type Database, type RootDatabase } from "../../transaction";
import { poolSqlOf } from "../../sql-transaction";
import { revive } from "../json-rows";

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

/** What a batch of direct sends names: the people's internal ids by external id, the templates, the categories. */
export interface SendReferenceRows {
  recipientIds: Map<string, string>;
  templates: TemplateRow[];
  categories: CategoryRow[];
}

/**
 * The people's ids, the templates and the categories in one raw statement (one round trip, and no
 * query for Prisma to compile: the hot path of direct sends, docs/benchmarks.md "Direct sends:
 * where the API's CPU goes"). The rows are Prisma's row types, timestamps revived as Dates.
 */
export async function findSendReferences(
  root: RootDatabase,
  keys: { recipients: readonly string[]; templates: readonly string[]; categories: readonly string[] },
): Promise<SendReferenceRows> {
  const [row] = await poolSqlOf(root).query<{
    recipients: [string, string][];
    templates: Record<string, unknown>[];
    categories: Record<string, unknown>[];
  }>(
    `SELECT (SELECT coalesce(json_agg(json_build_array(r.external_id, r.id)), '[]') FROM recipients r
              WHERE r.external_id = ANY($1::text[])) AS recipients,
            (SELECT coalesce(json_agg(t.*), '[]') FROM templates t WHERE t.key = ANY($2::text[])) AS templates,
            (SELECT coalesce(json_agg(c.*), '[]') FROM categories c WHERE c.key = ANY($3::text[])) AS categories`,
    [[...keys.recipients], [...keys.templates], [...keys.categories]],
  );
  const dates = ["created_at", "updated_at"];
  return {
    recipientIds: new Map(row!.recipients),
    templates: row!.templates.map((t) => revive<TemplateRow>(t, dates)),
    categories: row!.categories.map((c) => revive<CategoryRow>(c, dates)),
  };
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
  // Raw (sqlOf): it runs in a batch of direct sends' transaction too.
  const rows = await sqlOf(db).query<{ key: string }>("SELECT key FROM categories WHERE marketing", []);
  return rows.map((row) => row.key);
}
