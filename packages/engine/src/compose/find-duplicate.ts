import { AppError } from "@svc/core";
import type { MessageRow, TransactionClient } from "@svc/store";
import type { ComposeRequest } from "./compose-types";

// SPEC 1.1.1: the same dedup key, or the same idempotency key of the same sender, names the
// original message. Idempotency keys live 7 days: an expired one is released from its old
// message so the new message can take it; the same key with another body is 409 (like Stripe).

export async function findDuplicate(
  tx: TransactionClient,
  request: ComposeRequest,
  now: Date,
): Promise<MessageRow | null> {
  if (request.dedupKey) {
    const original = await tx.message.findUnique({ where: { dedup_key: request.dedupKey } });
    if (original) return original;
  }
  const key = request.idempotencyKey;
  if (!key) return null;
  const original = await tx.message.findUnique({
    where: { sender_idempotency_key: { sender: request.sender, idempotency_key: key } },
  });
  if (!original) return null;
  if (original.idempotency_expires_at && original.idempotency_expires_at.getTime() <= now.getTime()) {
    if (!request.dryRun) {
      await tx.message.updateMany({
        where: { id: original.id, idempotency_key: key },
        data: { idempotency_key: null, idempotency_expires_at: null },
      });
    }
    return null;
  }
  if (request.requestHash && original.request_hash && original.request_hash !== request.requestHash) {
    throw new AppError(
      "conflict",
      `idempotency_key '${key}' was already used with a different request body (message ${original.id})`,
    );
  }
  return original;
}
