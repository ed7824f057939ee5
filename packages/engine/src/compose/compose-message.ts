import { decidePolicy, newId, type FatigueState } from "@svc/core";
import {
  insertMessageUnlessTaken,
  saveFatigueState,
  type HistoryQuery,
  type HistoryRow,
  type MessageRow,
  type Transaction,
} from "@svc/store";
import { emitWebhookEvents, messageStatusEmissions } from "../outbox/emit";
import { announceHeldItems, heldMessageNotice } from "../shared/review-notices";
import type { ComposeDeps, ComposeRequest, ComposeResult } from "./compose-types";
import { readCompositionRows, type CompositionRows } from "./composition-rows";
import { findDuplicate } from "./find-duplicate";
import type { MessageContent } from "./message-content";
import { messageRowOf } from "./message-row";
import { assertReferences, capsOf, policyContextOf } from "./policy-context";
import { historyQueryFor, policyHistoryOf, readPolicyHistory } from "./policy-history";

/**
 * Decides one message under the caller's transaction and recipient lock (docs/policy.md): duplicate
 * check, read, the pure pipeline, then the message row and the fatigue state. No network I/O.
 * A dry run decides and writes nothing; its duplicate shows as `suppressed` / `duplicate`.
 * Throws ComposeReferenceError for a missing recipient, category or agent, and a 409 AppError for
 * an idempotency key reused with another body. Ingest decides through `decideMessage` with rows
 * from its snapshot (ingest/decide-event.ts).
 */
export async function composeMessage(
  tx: Transaction,
  deps: ComposeDeps,
  request: ComposeRequest,
): Promise<ComposeResult> {
  const now = deps.now();
  const original = await findDuplicate(tx, request, now);
  if (original && !request.dryRun) return { message: original, duplicate: true, notices: [] };

  const rows = await readCompositionRows(tx, request);
  const decided = await decideMessage(tx, deps, request, rows, { duplicateOf: original?.id ?? null });
  const { row } = decided;
  if (request.dryRun) return { message: row, duplicate: original !== null, notices: [] };

  // The recipient lock serialises composes of one person, which covers dedup keys. Idempotency
  // keys span people (same key, another recipient: a different body), so a concurrent insert can
  // still collide; then the committed original is read and returned (or refused as 409).
  const inserted = await insertMessageUnlessTaken(tx, row);
  if (!inserted) {
    const taken = await findDuplicate(tx, request, now);
    if (!taken) throw new Error(`message ${row.id}: a unique key was taken, but no original was found`);
    return { message: taken, duplicate: true, notices: [] };
  }
  if (decided.fatigue) await saveFatigueState(tx, row.recipient_id, row.category, decided.fatigue, now);
  await emitWebhookEvents(tx, messageStatusEmissions([inserted], now));
  const notices =
    inserted.status === "pending_approval"
      ? await announceHeldItems(tx, deps, [heldMessageNotice(inserted, rows.agent)])
      : [];
  return { message: inserted, duplicate: false, notices };
}

export interface DecidedMessage {
  /** The row to insert (nothing is written yet). */
  row: MessageRow;
  /** Fatigue state to save with it, when the category tracks fatigue. */
  fatigue: FatigueState | null;
}

export interface DecideOptions {
  /** Id of an earlier message with the same key (a dry run shows `duplicate`). */
  duplicateOf: string | null;
  /** Rows decided earlier in this transaction and not written yet; the limits count them too. */
  planned?: readonly (HistoryRow & { recipient_id: string })[];
  /**
   * The re-check of a message a reviewer approved (docs/approvals.md "Approving a held message"):
   * it keeps its id and the content the reviewer saw, has no second rule delay and no second
   * approval, and does not count against its own limits.
   */
  approved?: { messageId: string; content: MessageContent };
  /** The history already read for this request's query (a group read at once, compose-batch.ts). */
  history?: { query: HistoryQuery | null; rows: HistoryRow[] };
}

/** What decideMessage counts for this request: the query of its limits (null: none apply). */
export function historyQueryOfRequest(
  tx: Transaction,
  deps: ComposeDeps,
  request: ComposeRequest,
  rows: CompositionRows,
  now: Date,
): Promise<HistoryQuery | null> {
  const { recipient, category, agent } = assertReferences(request, rows);
  return historyQueryFor(tx, deps.config, now, {
    request,
    recipientId: recipient.id,
    category,
    categoryCaps: capsOf(category.frequency_caps),
    agentCaps: agent ? capsOf(agent.frequency_caps) : [],
  });
}

/**
 * The decision itself, for callers that checked duplicates and read the rows themselves: reads
 * the history the limits count, builds the context (pure) and runs the pipeline. Writes nothing.
 */
export async function decideMessage(
  tx: Transaction,
  deps: ComposeDeps,
  request: ComposeRequest,
  rows: CompositionRows,
  options: DecideOptions,
): Promise<DecidedMessage> {
  const now = deps.now();
  if (options.history && (options.approved || options.planned?.length))
    throw new Error("decideMessage: a history read beforehand covers neither approvals nor planned rows");
  const query = options.history
    ? options.history.query
    : await historyQueryOfRequest(tx, deps, request, rows, now);
  const approved = options.approved ?? null;
  if (query && approved) query.excludeMessageId = approved.messageId;
  const history = policyHistoryOf(
    query,
    options.history ? options.history.rows : await readPolicyHistory(tx, query, options.planned),
  );
  const id = approved?.messageId ?? newId("message", now.getTime());
  const loaded = policyContextOf({
    config: deps.config,
    now,
    messageId: id,
    request,
    rows,
    history,
    duplicateOf: options.duplicateOf,
  });
  if (approved) {
    loaded.ctx.message.approved = true;
    loaded.ctx.render = () => ({ ok: true, content: approved.content });
  }
  const decision = await decidePolicy(loaded.ctx);
  return {
    row: messageRowOf(id, now, request, loaded, decision, deps.config.secrets.secretKey),
    fatigue: decision.fatigue ?? null,
  };
}
