import { AppError } from "@svc/core";
import {
  findMessageByDedupKey,
  findMessageByIdempotencyKey,
  releaseMessageIdempotencyKey,
  type MessageRow,
  type Transaction,
} from "@svc/store";
import type { ComposeRequest } from "./compose-types";

// The duplicate check, first step of the policy (docs/policy.md): the same dedup key, or the same
// idempotency key of the same sender, names the original message. Idempotency keys live 7 days: an
// expired one is released from its old message so the new message can take it; the same key with
// another body is 409 (like Stripe).

export async function findDuplicate(
  tx: Transaction,
  request: ComposeRequest,
  now: Date,
): Promise<MessageRow | null> {
  if (request.dedupKey) {
    const original = await findMessageByDedupKey(tx, request.dedupKey);
    if (original) return original;
  }
  const key = request.idempotencyKey;
  if (!key) return null;
  const original = await findMessageByIdempotencyKey(tx, request.sender, key);
  if (!original) return null;
  if (original.idempotency_expires_at && original.idempotency_expires_at.getTime() <= now.getTime()) {
    if (!request.dryRun) await releaseMessageIdempotencyKey(tx, original.id, key);
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
