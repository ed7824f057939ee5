import type { CategoryRow, PrismaClient, RuleRow, TemplateRow, TransactionClient } from "@svc/store";

// Rules, templates and categories change rarely and every event reads them, so each process keeps
// a copy keyed by a fingerprint of the three tables that the event's own transaction reads (after
// its lock, in the same statement as the event): an edit committed before that statement changes
// the fingerprint, so the event sees it. No window, and edits from any writer (API, svcctl, SQL)
// count. The fingerprint hashes each row's key and xmin (a new row version on every UPDATE).

/** SQL expression for the fingerprint: count and hash sum of (key, row version) per table. */
export const CONFIG_VERSION_SQL = ["rules", "templates", "categories"]
  .map(
    (table) =>
      `(SELECT count(*)::text || '.' || coalesce(sum(hashtextextended(key || '/' || xmin::text, 0)), 0)::text FROM ${table})`,
  )
  .join(" || ':' || ");

export interface IngestConfig {
  version: string;
  /** Enabled rules only (disabled ones never match). */
  rules: RuleRow[];
  templates: ReadonlyMap<string, TemplateRow>;
  categories: ReadonlyMap<string, CategoryRow>;
}

// One copy per client (per database), so two databases in one process never share one.
const caches = new WeakMap<object, IngestConfig>();

/**
 * The cached configuration when `version` is current; else reloads it inside `tx` and labels it
 * with `version`. The reload reads at least as new as `version` (it comes later in the same
 * transaction), so a label never claims data older than it is.
 */
export async function ingestConfig(
  owner: PrismaClient,
  tx: TransactionClient,
  version: string,
): Promise<IngestConfig> {
  const cached = caches.get(owner);
  if (cached?.version === version) return cached;
  const [rules, templates, categories] = await Promise.all([
    tx.rule.findMany({ where: { enabled: true } }),
    tx.template.findMany(),
    tx.category.findMany(),
  ]);
  const loaded: IngestConfig = {
    version,
    rules,
    templates: new Map(templates.map((t) => [t.key, t])),
    categories: new Map(categories.map((c) => [c.key, c])),
  };
  caches.set(owner, loaded);
  return loaded;
}

/** Forgets the cached copy of `owner` (tests; the fingerprint makes it unnecessary otherwise). */
export function forgetIngestConfig(owner: PrismaClient): void {
  caches.delete(owner);
}
