import { createHash } from "node:crypto";
import { sqlOf, transactionOf, type Transaction, isTransactionClient } from "./transaction";

/**
 * Each kind of lock gets its own 16-bit tag in the top of the 64-bit key, so kinds never collide with
 * each other nor with the migration lock (72707369 < 2^48, tag 0).
 */
export const LockNamespace = {
  recipient: 1,
  /** An agent's held items, counted against approvals.max_pending_per_agent. */
  agentHolds: 2,
  /** A text number (E.164): STOP/START replies and profile writes that add the number. */
  phoneNumber: 3,
  /** A broadcast's audience while it is fixed (one planner at a time). */
  broadcastPlan: 4,
  /** A person's inbox items: their changes take positions in commit order (docs/inbox.md). */
  inbox: 5,
} as const;
export type LockNamespace = (typeof LockNamespace)[keyof typeof LockNamespace];

const HASH_BITS = 48n;

/** Stable 64-bit advisory lock key: namespace tag << 48 | first 48 bits of SHA-256(key). */
export function advisoryLockKey(namespace: LockNamespace, key: string): bigint {
  const digest = createHash("sha256").update(key, "utf8").digest();
  return (BigInt(namespace) << HASH_BITS) | BigInt(digest.readUIntBE(0, 6));
}

/** Holds an advisory lock until the surrounding transaction ends. */
export async function advisoryXactLock(
  tx: Transaction,
  namespace: LockNamespace,
  key: string,
): Promise<void> {
  // Outside a transaction the "xact" lock would be released at once: refuse rather than lock nothing.
  if (!isTransactionClient(tx)) throw new Error("advisory transaction locks need a transaction client");
  // $executeRaw, not $queryRaw: the adapter cannot read pg_advisory_xact_lock's void result.
  await transactionOf(tx).$executeRaw`SELECT pg_advisory_xact_lock(${advisoryLockKey(namespace, key)})`;
}

/** Serialises per-recipient decisions: call first thing inside the transaction. */
export function lockRecipient(tx: Transaction, recipientKey: string): Promise<void> {
  return advisoryXactLock(tx, LockNamespace.recipient, recipientKey);
}

/**
 * lockRecipient for several people in one statement, taken in key order so two holders of several
 * people never wait on each other in a circle (a batch of direct sends, docs/messages.md).
 */
export function lockRecipients(tx: Transaction, recipientKeys: readonly string[]): Promise<void> {
  return advisoryXactLocks(tx, LockNamespace.recipient, recipientKeys);
}

/** Locks of one kind for several keys in one statement, taken in key order (no waiting in a circle). */
async function advisoryXactLocks(
  tx: Transaction,
  namespace: LockNamespace,
  keys: readonly string[],
): Promise<void> {
  const sorted = [...new Set(keys.map((key) => advisoryLockKey(namespace, key)))]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map(String);
  if (sorted.length === 0) return;
  await sqlOf(tx).execute(
    "SELECT pg_advisory_xact_lock(k) FROM (SELECT unnest($1::text[])::bigint AS k ORDER BY 1) AS ordered",
    [sorted],
  );
}

/**
 * lockRecipient for one person's keys in one round trip, taken left to right as given (Postgres
 * evaluates the select list in order): an external id, then the internal id, as ingest and a
 * person's own writes take them (docs/events.md).
 */
export async function lockRecipientsInOrder(tx: Transaction, keys: readonly string[]): Promise<void> {
  if (keys.length === 1) return lockRecipient(tx, keys[0]!);
  const list = keys.map((_, i) => `pg_advisory_xact_lock($${i + 1}::bigint)`).join(", ");
  await transactionOf(tx).$executeRawUnsafe(
    `SELECT ${list}`,
    ...keys.map((key) => advisoryLockKey(LockNamespace.recipient, key)),
  );
}

/** Serialises the checks of an agent's cap on held items (taken after any recipient lock). */
export function lockAgentHolds(tx: Transaction, agentKey: string): Promise<void> {
  return advisoryXactLock(tx, LockNamespace.agentHolds, agentKey);
}

/** SQL for advisoryLockKey(namespace, <text expression>), so a statement can lock rows it reads. */
export function advisoryLockKeySql(namespace: LockNamespace, textExpression: string): string {
  return `((${namespace}::bigint << ${HASH_BITS}) | ('x' || substr(encode(sha256(convert_to(${textExpression}, 'UTF8')), 'hex'), 1, 12))::bit(48)::bigint)`;
}

/**
 * Serialises everything that decides whether a text number is muted: STOP/START replies and the
 * profile writes that add the number (docs/texting.md "Numbers"). Taken in sorted order, so two
 * holders of several numbers never wait on each other in a circle.
 */
export async function lockPhoneNumbers(tx: Transaction, e164Numbers: readonly string[]): Promise<void> {
  for (const number of [...new Set(e164Numbers)].sort()) {
    await advisoryXactLock(tx, LockNamespace.phoneNumber, number);
  }
}

/** Serialises the changes of a person's inbox items (keyed by the internal recipient id). */
export function lockInbox(tx: Transaction, recipientId: string): Promise<void> {
  return advisoryXactLock(tx, LockNamespace.inbox, recipientId);
}

/** lockInbox for several people in one statement, in key order. */
export function lockInboxes(tx: Transaction, recipientIds: readonly string[]): Promise<void> {
  return advisoryXactLocks(tx, LockNamespace.inbox, recipientIds);
}
