import {
  findAgentRow,
  findCategories,
  findCategory,
  findFatigueState,
  loadRecipientsForCompose,
  findRecipientWithPolicyRows,
  findTemplate,
  findTemplates,
  type AgentRow,
  type CategoryRow,
  type FatigueStateRow,
  type RecipientWithPolicyRows,
  type TemplateRow,
  type Transaction,
} from "@svc/store";
import type { ComposeRequest } from "./compose-types";

// The rows one composition decides from. Digests and broadcasts read them here, one statement
// each; a batch of direct sends reads them for all its sends at once (`readCompositionRowsOf`);
// ingest reads them from its snapshot instead (ingest/ingest-reads.ts).

export interface CompositionRows {
  recipient: RecipientWithPolicyRows | null;
  category: CategoryRow | null;
  template: TemplateRow | null;
  /** The request's agent row (null when the request has no agent or the agent row is gone). */
  agent: AgentRow | null;
  /** This recipient's fatigue state in the request's category. */
  fatigue: FatigueStateRow | null;
}

export async function readCompositionRows(
  tx: Transaction,
  request: ComposeRequest,
): Promise<CompositionRows> {
  const recipient = await findRecipientWithPolicyRows(tx, { id: request.recipientId });
  if (!recipient) return { recipient: null, category: null, template: null, agent: null, fatigue: null };
  const category = await findCategory(tx, request.category);
  if (!category) return { recipient, category: null, template: null, agent: null, fatigue: null };
  const agent = request.agentKey ? await findAgentRow(tx, request.agentKey) : null;
  const template = await findTemplate(tx, request.template);
  const fatigue = await findFatigueState(tx, recipient.id, category.key);
  return { recipient, category, agent, template, fatigue };
}

/**
 * readCompositionRows for several requests of different people, in a few statements for all of
 * them (under every person's lock). Gives each request the rows readCompositionRows would.
 */
export async function readCompositionRowsOf(
  tx: Transaction,
  requests: readonly ComposeRequest[],
  /** Templates and categories the caller read already (in this batch), not read again. */
  known?: { templates: TemplateRow[]; categories: CategoryRow[] },
): Promise<(request: ComposeRequest) => CompositionRows> {
  const unique = <T>(values: T[]) => [...new Set(values)];
  const categoryKeys = unique(requests.map((r) => r.category));
  const recipientIds = unique(requests.map((r) => r.recipientId));
  const agentKeys = unique(requests.flatMap((r) => (r.agentKey ? [r.agentKey] : [])));
  const { recipients, fatigue } = await loadRecipientsForCompose(tx, recipientIds, categoryKeys);
  const categories = known?.categories ?? (await findCategories(tx, categoryKeys));
  const templates = known?.templates ?? (await findTemplates(tx, unique(requests.map((r) => r.template))));
  const agents = new Map<string, AgentRow | null>();
  for (const key of agentKeys) agents.set(key, await findAgentRow(tx, key));
  const byKey = <T extends { key: string }>(rows: T[]) => new Map(rows.map((row) => [row.key, row]));
  const recipientById = new Map(recipients.map((row) => [row.id, row]));
  const categoryByKey = byKey(categories);
  const templateByKey = byKey(templates);
  return (request) => {
    const recipient = recipientById.get(request.recipientId) ?? null;
    if (!recipient) return { recipient: null, category: null, template: null, agent: null, fatigue: null };
    const category = categoryByKey.get(request.category) ?? null;
    if (!category) return { recipient, category: null, template: null, agent: null, fatigue: null };
    return {
      recipient,
      category,
      agent: request.agentKey ? (agents.get(request.agentKey) ?? null) : null,
      template: templateByKey.get(request.template) ?? null,
      fatigue: fatigue.find((f) => f.recipient_id === recipient.id && f.category === category.key) ?? null,
    };
  };
}
