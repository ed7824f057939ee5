import { AppError } from "@svc/core";
import {
  findMessagesByDedupKeys,
  insertComposedMessages,
  saveFatigueState,
  type CategoryRow,
  type HistoryQuery,
  type TemplateRow,
  type Transaction,
} from "@svc/store";
import { messageStatusEmissions, webhookEntries } from "../outbox/emit";
import { announceHeldItems, heldMessageNotice } from "../shared/review-notices";
import { ComposeReferenceError } from "./compose-errors";
import { decideMessage, historyQueryOfRequest, type DecidedMessage } from "./compose-message";
import { readPolicyHistories } from "./policy-history";
import type { ComposeDeps, ComposeRequest, ComposeResult } from "./compose-types";
import { readCompositionRowsOf, type CompositionRows } from "./composition-rows";

/** Each request's result, or the refusal composeMessage would have thrown for it. */
export type ComposeOutcome = { ok: true; result: ComposeResult } | { ok: false; error: unknown };

/**
 * composeMessage for several requests of different people, under the caller's transaction and
 * every person's lock: the messages their dedup keys already name in one statement (returned as
 * duplicates, as composeMessage returns them), the rows read in a few statements for the rest,
 * each decided as composeMessage decides it, the messages inserted in one statement. A dedup key
 * belongs to one person (`brd:<broadcast>:<recipient>`, `evt:…`), so under the locks a key found
 * free stays free until the insert. Idempotency keys span people and dry runs write nothing: those
 * compose alone. A refusal found before writing (a reference gone) is that request's outcome; any
 * other error is thrown (the caller's transaction fails).
 */
export async function composeMessagesOfPeople(
  tx: Transaction,
  deps: ComposeDeps,
  requests: readonly ComposeRequest[],
  known?: { templates: TemplateRow[]; categories: CategoryRow[] },
): Promise<ComposeOutcome[]> {
  const people = new Set(requests.map((r) => r.recipientId));
  if (people.size !== requests.length) throw new Error("composeMessagesOfPeople: one request per person");
  if (requests.some((r) => r.idempotencyKey || r.dryRun))
    throw new Error("composeMessagesOfPeople: requests with idempotency keys or dry runs compose alone");
  const taken = await findMessagesByDedupKeys(
    tx,
    requests.flatMap((r) => (r.dedupKey ? [r.dedupKey] : [])),
  );
  const fresh = requests.filter((r) => !r.dedupKey || !taken.has(r.dedupKey));
  const rowsOf = await readCompositionRowsOf(tx, fresh, known);
  const now = deps.now();
  const decided = new Map<
    ComposeRequest,
    { ok: true; rows: CompositionRows; decided: DecidedMessage } | { ok: false; error: unknown }
  >();
  const refused = (request: ComposeRequest, error: unknown) => {
    if (!(error instanceof ComposeReferenceError || error instanceof AppError)) throw error;
    decided.set(request, { ok: false, error });
  };
  // What each person's limits count, read for the whole group in one statement.
  const counted: { request: ComposeRequest; query: HistoryQuery | null }[] = [];
  for (const request of fresh) {
    try {
      counted.push({ request, query: await historyQueryOfRequest(tx, deps, request, rowsOf(request), now) });
    } catch (error) {
      refused(request, error);
    }
  }
  const histories = await readPolicyHistories(
    tx,
    counted.map((c) => c.query),
  );
  // The decisions run together (each is pure given its rows and history), so their renders go to
  // the render thread as one trip (rendering/render-pool.ts); their order is kept.
  const decisions = await Promise.all(
    counted.map(({ request, query }, i) =>
      decideMessage(tx, deps, request, rowsOf(request), {
        duplicateOf: null,
        history: { query, rows: histories[i]! },
      }).then(
        (message) => ({ ok: true as const, message }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
    ),
  );
  for (const [i, { request }] of counted.entries()) {
    const decision = decisions[i]!;
    if (decision.ok) decided.set(request, { ok: true, rows: rowsOf(request), decided: decision.message });
    else refused(request, decision.error);
  }
  const toInsert = [...decided.values()].flatMap((d) => (d.ok ? [d.decided.row] : []));
  // The messages and the webhook events that report them, in one statement.
  const stored = await insertComposedMessages(
    tx,
    toInsert,
    webhookEntries(messageStatusEmissions(toInsert, now)),
  );
  const inserted = new Map(stored.map((row) => [row.id, row]));
  const outcomes: ComposeOutcome[] = [];
  for (const request of requests) {
    const original = request.dedupKey ? taken.get(request.dedupKey) : undefined;
    if (original) {
      outcomes.push({ ok: true, result: { message: original, duplicate: true, notices: [] } });
      continue;
    }
    const d = decided.get(request)!;
    if (!d.ok) {
      outcomes.push(d);
      continue;
    }
    const { row, fatigue } = d.decided;
    const message = inserted.get(row.id)!;
    if (fatigue) await saveFatigueState(tx, row.recipient_id, row.category, fatigue, now);
    const notices =
      message.status === "pending_approval"
        ? await announceHeldItems(tx, deps, [heldMessageNotice(message, d.rows.agent)])
        : [];
    outcomes.push({ ok: true, result: { message, duplicate: false, notices } });
  }
  return outcomes;
}
