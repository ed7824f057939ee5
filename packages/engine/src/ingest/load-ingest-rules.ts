import type { MatchAgent } from "@svc/core";
import type { EventRow, RuleRow, TransactionClient } from "@svc/store";

export interface IngestRules {
  /** Enabled rules whose pattern may see the event (matchRules applies patternSeesEvent). */
  rules: RuleRow[];
  agent: MatchAgent | null;
  existing: { templates: ReadonlySet<string>; categories: ReadonlySet<string> };
}

/**
 * What rule matching reads, inside the ingest transaction: candidate rules (the exact name, or any
 * wildcard pattern), the reporting agent as it is now, and which referenced templates and
 * categories exist.
 */
export async function loadIngestRules(
  tx: TransactionClient,
  event: Pick<EventRow, "name" | "agent_key">,
): Promise<IngestRules> {
  const rules = await tx.rule.findMany({
    where: { enabled: true, OR: [{ event: event.name }, { event: { contains: "*" } }] },
  });
  const [templates, categories, agent] = await Promise.all([
    tx.template.findMany({
      where: { key: { in: unique(rules.map((r) => r.template)) } },
      select: { key: true },
    }),
    tx.category.findMany({
      where: { key: { in: unique(rules.map((r) => r.category)) } },
      select: { key: true },
    }),
    event.agent_key ? loadAgent(tx, event.agent_key) : Promise.resolve(null),
  ]);
  return {
    rules,
    agent,
    existing: {
      templates: new Set(templates.map((t) => t.key)),
      categories: new Set(categories.map((c) => c.key)),
    },
  };
}

async function loadAgent(tx: TransactionClient, key: string): Promise<MatchAgent> {
  const row = await tx.agent.findUnique({ where: { key } });
  // Agents are soft-deleted; a row gone altogether is deleted all the more.
  if (!row) return { key, enabled: false, deleted: true, categories: [] };
  return {
    key,
    enabled: row.enabled,
    deleted: row.deleted_at !== null,
    categories: Array.isArray(row.categories) ? (row.categories as string[]) : null,
  };
}

const unique = (values: string[]) => [...new Set(values)];
