import {
  AGENT_BUDGET_COUNTING_STATUSES,
  CAP_COUNTING_STATUSES,
  type FrequencyCap,
  type PolicyHistory,
} from "@svc/core";
import type { SvcConfig } from "@svc/config";
import {
  marketingCategoryKeys,
  messageHistory,
  messageHistoryOfPeople,
  type CategoryRow,
  type HistoryQuery,
  type HistoryRow,
  type Transaction,
} from "@svc/store";
import type { ComposeRequest } from "./compose-types";

// The messages the limits count (docs/policy.md "Limits"): caps, cooldown, agent budget and US
// texting caps look at the person's messages around the new send time. One statement reads every
// row that may count; the lists are cut from it here. Rows decided earlier in the same
// transaction and not written yet (a second rule of one event) are added by `alsoPlanned`.

const DAY_SECONDS = 86_400;

export interface HistoryNeeds {
  request: ComposeRequest;
  recipientId: string;
  category: CategoryRow;
  categoryCaps: readonly FrequencyCap[];
  agentCaps: readonly FrequencyCap[];
}

/** What to read, or null when no limit applies (nothing counts). */
export async function historyQueryFor(
  tx: Transaction,
  config: SvcConfig,
  now: Date,
  needs: HistoryNeeds,
): Promise<HistoryQuery | null> {
  const { request, category } = needs;
  const smsChannels = config.compliance.sms_channels;
  const textsMatter = config.compliance.us_texting_rules && category.marketing && smsChannels.length > 0;
  const cooldown = request.rule?.cooldownSeconds ?? 0;
  const longest = Math.max(
    0,
    ...needs.categoryCaps.map((c) => c.periodSeconds),
    ...needs.agentCaps.map((c) => c.periodSeconds),
    cooldown,
    textsMatter ? DAY_SECONDS : 0,
  );
  if (longest === 0) return null;
  return {
    recipientId: needs.recipientId,
    since: new Date(now.getTime() - longest * 1000),
    statuses: AGENT_BUDGET_COUNTING_STATUSES,
    category: category.key,
    rule: request.rule && cooldown > 0 ? request.rule.key : null,
    agentKey: request.agentKey && needs.agentCaps.length > 0 ? request.agentKey : null,
    marketingTexts: textsMatter
      ? { categories: await marketingCategoryKeys(tx), channels: smsChannels }
      : null,
  };
}

/** The same selection as the store's `messageHistory` statement, for rows not written yet. */
export function historyQuerySelects(
  query: HistoryQuery,
  row: HistoryRow & { recipient_id: string },
): boolean {
  if (row.recipient_id !== query.recipientId) return false;
  if (row.send_at.getTime() < query.since.getTime()) return false;
  if (!query.statuses.includes(row.status)) return false;
  return (
    row.category === query.category ||
    (query.rule !== null && row.rule === query.rule) ||
    (query.agentKey !== null && row.agent_key === query.agentKey) ||
    (query.marketingTexts !== null &&
      query.marketingTexts.categories.includes(row.category) &&
      row.channels.some((c) => query.marketingTexts!.channels.includes(c)))
  );
}

export async function readPolicyHistory(
  tx: Transaction,
  query: HistoryQuery | null,
  alsoPlanned: readonly (HistoryRow & { recipient_id: string })[] = [],
): Promise<HistoryRow[]> {
  if (query === null) return [];
  const stored = await messageHistory(tx, query);
  return [...stored, ...alsoPlanned.filter((row) => historyQuerySelects(query, row))];
}

/**
 * readPolicyHistory for several people in one statement (a group composed at once): the rows of
 * every person read together, then each query's cut with `historyQuerySelects`, the selection
 * `messageHistory` makes (the two are held equal by a property test).
 */
export async function readPolicyHistories(
  tx: Transaction,
  queries: readonly (HistoryQuery | null)[],
): Promise<HistoryRow[][]> {
  const live = queries.filter((q): q is HistoryQuery => q !== null);
  if (live.length === 0) return queries.map(() => []);
  if (live.some((q) => q.excludeMessageId)) throw new Error("readPolicyHistories: no excluded messages");
  const rows = await messageHistoryOfPeople(tx, {
    recipientIds: [...new Set(live.map((q) => q.recipientId))],
    since: new Date(Math.min(...live.map((q) => q.since.getTime()))),
    statuses: [...new Set(live.flatMap((q) => q.statuses))],
  });
  return queries.map((query) =>
    query === null
      ? []
      : rows.filter((row) => historyQuerySelects(query, row)).map(({ recipient_id: _, ...row }) => row),
  );
}

/** The four lists the pipeline counts, cut from the rows the query selected. */
export function policyHistoryOf(query: HistoryQuery | null, rows: readonly HistoryRow[]): PolicyHistory {
  if (query === null) return { category: [], rule: [], agent: [], marketingTexts: [] };
  const counts = (status: string) => (CAP_COUNTING_STATUSES as readonly string[]).includes(status);
  const texts = query.marketingTexts;
  return {
    category: rows.filter((r) => counts(r.status) && r.category === query.category).map((r) => r.send_at),
    rule:
      query.rule !== null
        ? rows.filter((r) => counts(r.status) && r.rule === query.rule).map((r) => r.send_at)
        : [],
    agent:
      query.agentKey !== null ? rows.filter((r) => r.agent_key === query.agentKey).map((r) => r.send_at) : [],
    marketingTexts: texts
      ? rows
          .filter(
            (r) =>
              counts(r.status) &&
              texts.categories.includes(r.category) &&
              r.channels.some((c) => texts.channels.includes(c)),
          )
          .map((r) => r.send_at)
      : [],
  };
}
