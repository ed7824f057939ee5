import {
  loadRuleConfiguration,
  type CategoryRow,
  type RootDatabase,
  type RuleRow,
  type TemplateRow,
  type Transaction,
} from "@svc/store";

// Rules, templates and categories change rarely and every event reads them, so each process keeps
// a copy keyed by a fingerprint of the three tables that the event's own transaction reads (after
// its lock, in the same statement as the event: CONFIG_VERSION_SQL in packages/store). An edit
// committed before that statement changes the fingerprint, so the event sees it. No window, and
// edits from any writer (API, svcctl, SQL) count.

export interface IngestConfig {
  version: string;
  /** Enabled rules only (disabled ones never match). */
  rules: RuleRow[];
  templates: ReadonlyMap<string, TemplateRow>;
  categories: ReadonlyMap<string, CategoryRow>;
}

// One copy per client (per database), so two databases in one process never share one.
const caches = new WeakMap<object, IngestConfig>();

/** The configuration as read now, in `tx` (no copy kept). */
export async function readIngestConfig(tx: Transaction, version: string): Promise<IngestConfig> {
  const { rules, templates, categories } = await loadRuleConfiguration(tx);
  return {
    version,
    rules,
    templates: new Map(templates.map((t) => [t.key, t])),
    categories: new Map(categories.map((c) => [c.key, c])),
  };
}

/**
 * The cached configuration when `version` is current; else reloads it inside `tx` and labels it
 * with `version`. The reload reads at least as new as `version` (it comes later in the same
 * transaction), so a label never claims data older than it is.
 */
export async function ingestConfig(
  owner: RootDatabase,
  tx: Transaction,
  version: string,
): Promise<IngestConfig> {
  const cached = caches.get(owner);
  if (cached?.version === version) return cached;
  const loaded = await readIngestConfig(tx, version);
  caches.set(owner, loaded);
  return loaded;
}

/** Forgets the cached copy of `owner` (tests; the fingerprint makes it unnecessary otherwise). */
export function forgetIngestConfig(owner: RootDatabase): void {
  caches.delete(owner);
}
