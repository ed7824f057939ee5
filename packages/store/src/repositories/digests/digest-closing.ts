import type { PrismaClientOrTransaction, TransactionClient } from "../../transaction";

// A digest leaves `open` exactly once: every change of state here is a compare-and-set on
// `status = 'open'` that says whether it won, so the caller decides what losing the race means.

/** Takes the digest out of its group (`open_key` goes): no event joins it any more. */
export async function detachOpenDigest(tx: TransactionClient, id: string, now: Date): Promise<boolean> {
  const { count } = await tx.digest.updateMany({
    where: { id, status: "open" },
    data: { open_key: null, updated_at: now },
  });
  return count === 1;
}

export async function markDigestSent(tx: TransactionClient, id: string, now: Date): Promise<boolean> {
  const { count } = await tx.digest.updateMany({
    where: { id, status: "open" },
    data: { status: "sent", open_key: null, sent_at: now, updated_at: now },
  });
  return count === 1;
}

export async function cancelOpenDigest(
  db: PrismaClientOrTransaction,
  id: string,
  reason: string,
  now: Date,
): Promise<boolean> {
  const { count } = await db.digest.updateMany({
    where: { id, status: "open" },
    data: { status: "cancelled", open_key: null, status_reason: reason, updated_at: now },
  });
  return count === 1;
}

/** Cancels every open digest of a rule (disabled or deleted); returns how many. */
export async function cancelOpenDigestsOfRule(
  db: PrismaClientOrTransaction,
  ruleKey: string,
  reason: string,
  now: Date,
): Promise<number> {
  const { count } = await db.digest.updateMany({
    where: { rule_key: ruleKey, status: "open" },
    data: { status: "cancelled", open_key: null, status_reason: reason, updated_at: now },
  });
  return count;
}

/** "Send now": an open digest not yet due becomes due now. True when `closes_at` moved. */
export async function closeDigestWindowNow(
  db: PrismaClientOrTransaction,
  id: string,
  now: Date,
): Promise<boolean> {
  const { count } = await db.digest.updateMany({
    where: { id, status: "open", closes_at: { gt: now } },
    data: { closes_at: now, updated_at: now },
  });
  return count === 1;
}

/** The message a sent digest became. */
export async function setDigestMessage(tx: TransactionClient, id: string, messageId: string): Promise<void> {
  await tx.digest.update({ where: { id }, data: { message_id: messageId } });
}

/** A digest just marked sent whose message could not be composed ends cancelled, unsent. */
export async function cancelDigestInsteadOfSending(
  tx: TransactionClient,
  id: string,
  reason: string,
): Promise<void> {
  await tx.digest.update({
    where: { id },
    data: { status: "cancelled", status_reason: reason, sent_at: null },
  });
}
