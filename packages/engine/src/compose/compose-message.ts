import { decidePolicy, newId } from "@svc/core";
import { isUniqueViolation, type MessageRow, type TransactionClient } from "@svc/store";
import type { ComposeDeps, ComposeRequest, ComposeResult } from "./compose-types";
import { findDuplicate } from "./find-duplicate";
import { loadPolicyContext } from "./load-policy-context";
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
): Promise<ComposeResult> {
  const now = deps.now();
  const original = await findDuplicate(tx, request, now);
  if (original && !request.dryRun) return { message: original, duplicate: true };

  const id = newId("message", now.getTime());
  const loaded = await loadPolicyContext(tx, deps.config, now, id, request, original?.id ?? null);
  const decision = await decidePolicy(loaded.ctx);
  const row = messageRowOf(id, now, request, loaded, decision);
  if (request.dryRun) return { message: row, duplicate: original !== null };

  const inserted = await insertOnce(tx, row, request, now);
  if (inserted.duplicate) return inserted;
  if (decision.fatigue) await saveFatigue(tx, row.recipient_id, row.category, decision.fatigue, now);
  return inserted;
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
