import {
  findAgentRow,
  findCategory,
  findFatigueState,
  findRecipientWithPolicyRows,
  findTemplate,
  type AgentRow,
  type CategoryRow,
  type FatigueStateRow,
  type RecipientWithPolicyRows,
  type TemplateRow,
  type TransactionClient,
} from "@svc/store";
import type { ComposeRequest } from "./compose-types";

// The rows one composition decides from. Direct sends, digests and broadcasts read them here, one
// statement each; ingest reads them from its snapshot instead (ingest/ingest-reads.ts).

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
  tx: TransactionClient,
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
