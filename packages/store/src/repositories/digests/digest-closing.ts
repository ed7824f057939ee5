import type { Prisma } from "../../generated/prisma/client";
import { prismaOf, transactionOf, type Database, type Transaction } from "../../transaction";

// A digest leaves `open` exactly once: every change of state here is a compare-and-set on
// `status = 'open'` that says whether it won, so the caller decides what losing the race means.

type OpenDigests = { id: string } | { rule_key: string };

/** The one compare-and-set: changes the digests of `which` still open; returns how many. */
async function changeWhileOpen(
  db: Database,
  which: OpenDigests & { closes_at?: { gt: Date } },
  data: Prisma.DigestUpdateManyMutationInput,
): Promise<number> {
  const { count } = await prismaOf(db).digest.updateMany({ where: { ...which, status: "open" }, data });
  return count;
}

const cancelled = (reason: string, now: Date) =>
  ({ status: "cancelled", open_key: null, status_reason: reason, updated_at: now }) as const;

/** Takes the digest out of its group (`open_key` goes): no event joins it any more. */
export async function detachOpenDigest(tx: Transaction, id: string, now: Date): Promise<boolean> {
  return (await changeWhileOpen(tx, { id }, { open_key: null, updated_at: now })) === 1;
}

export async function markDigestSent(tx: Transaction, id: string, now: Date): Promise<boolean> {
  const sent = { status: "sent", open_key: null, sent_at: now, updated_at: now } as const;
  return (await changeWhileOpen(tx, { id }, sent)) === 1;
}

export async function cancelOpenDigest(
  db: Database,
  id: string,
  reason: string,
  now: Date,
): Promise<boolean> {
  return (await changeWhileOpen(db, { id }, cancelled(reason, now))) === 1;
}

/** Cancels every open digest of a rule (disabled or deleted); returns how many. */
export async function cancelOpenDigestsOfRule(
  db: Database,
  ruleKey: string,
  reason: string,
  now: Date,
): Promise<number> {
  return changeWhileOpen(db, { rule_key: ruleKey }, cancelled(reason, now));
}

/** "Send now": an open digest not yet due becomes due now. True when `closes_at` moved. */
export async function closeDigestWindowNow(db: Database, id: string, now: Date): Promise<boolean> {
  const notDueYet = { id, closes_at: { gt: now } };
  return (await changeWhileOpen(db, notDueYet, { closes_at: now, updated_at: now })) === 1;
}

/** The message a sent digest became. */
export async function setDigestMessage(tx: Transaction, id: string, messageId: string): Promise<void> {
  await transactionOf(tx).digest.update({ where: { id }, data: { message_id: messageId } });
}

/** A digest just marked sent whose message could not be composed ends cancelled, unsent. */
export async function cancelDigestInsteadOfSending(
  tx: Transaction,
  id: string,
  reason: string,
): Promise<void> {
  await transactionOf(tx).digest.update({
    where: { id },
    data: { status: "cancelled", status_reason: reason, sent_at: null },
  });
}
