import { decidePolicy, newId, type FatigueState } from "@svc/core";
import { isUniqueViolation, type MessageRow, type TransactionClient } from "@svc/store";
import type { ComposeDeps, ComposeRequest, ComposeResult } from "./compose-types";
import { findDuplicate } from "./find-duplicate";
import { loadPolicyContext, type PreloadedComposition } from "./load-policy-context";
import { insertMessage, messageRowOf, saveFatigue } from "./write-message";

/**
 * Decides one message under the caller's transaction and recipient lock (SPEC 1.1): duplicate
 * check, load, the pure pipeline, then the message row and the fatigue state. No network I/O.
 * A dry run decides and writes nothing; its duplicate shows as `suppressed` / `duplicate`.
 * Throws ComposeReferenceError for a missing recipient, category or agent, and a 409 AppError for
 * an idempotency key reused with another body.
 */
export async function composeMessage(
  tx: TransactionClient,
  deps: ComposeDeps,
  request: ComposeRequest,
  preloaded?: PreloadedComposition,
): Promise<ComposeResult> {
  const now = deps.now();
  const original = await findDuplicate(tx, request, now);
  if (original && !request.dryRun) return { message: original, duplicate: true };

  const id = newId("message", now.getTime());
  const loaded = await loadPolicyContext(tx, deps.config, now, id, request, original?.id ?? null, preloaded);
  const decision = await decidePolicy(loaded.ctx);
  const row = messageRowOf(id, now, request, loaded, decision);
  if (request.dryRun) return { message: row, duplicate: original !== null };

  const inserted = await insertOnce(tx, row, request, now);
  if (inserted.duplicate) return inserted;
  if (decision.fatigue) await saveFatigue(tx, row.recipient_id, row.category, decision.fatigue, now);
  return inserted;
}

export interface DecidedMessage {
  /** The row to insert (nothing is written yet). */
  row: MessageRow;
  /** Fatigue state to save with it, when the category tracks fatigue. */
  fatigue: FatigueState | null;
}

/**
 * The decide half of composeMessage for a caller that already knows there is no duplicate (ingest
 * checked, under the lock, that its event has no message) and writes the row itself, with other
 * rows of the same transaction in one statement. Same load and pipeline as composeMessage.
 */
export async function decideMessage(
  tx: TransactionClient,
  deps: ComposeDeps,
  request: ComposeRequest,
  preloaded: PreloadedComposition,
): Promise<DecidedMessage> {
  const now = deps.now();
  const id = newId("message", now.getTime());
  const loaded = await loadPolicyContext(tx, deps.config, now, id, request, null, preloaded);
  const decision = await decidePolicy(loaded.ctx);
  return { row: messageRowOf(id, now, request, loaded, decision), fatigue: decision.fatigue ?? null };
}

// The recipient lock serialises composes of one person, which covers dedup keys. Idempotency
// keys span people (same key, another recipient: a different body), so a concurrent insert can
// still collide; a unique violation aborts a Postgres transaction, hence the savepoint, after
// which the committed original is read and returned (or refused as 409).
async function insertOnce(
  tx: TransactionClient,
  row: MessageRow,
  request: ComposeRequest,
  now: Date,
): Promise<ComposeResult> {
  await tx.$executeRawUnsafe("SAVEPOINT compose_insert");
  try {
    const message = await insertMessage(tx, row);
    await tx.$executeRawUnsafe("RELEASE SAVEPOINT compose_insert");
    return { message, duplicate: false };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    await tx.$executeRawUnsafe("ROLLBACK TO SAVEPOINT compose_insert");
    const original = await findDuplicate(tx, request, now);
    if (!original) throw error;
    return { message: original, duplicate: true };
  }
}
