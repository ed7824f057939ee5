import type { Queues } from "@svc/queue";
import { insertOutboxEntries, type NewOutboxEntry, type Transaction } from "@svc/store";

// Writing to the outbox (docs/outbox.md): a use case records what the outside must hear about
// inside the transaction of the change, then, after the commit, kicks the relay so it need not
// wait for its next poll. A lost kick only delays the entry until that poll.

/** The notice channel (under the Redis prefix) on which writers kick the relays. */
export const OUTBOX_KICK = "outbox:kick";

export type { NewOutboxEntry };

/** Records entries under `tx`, the transaction that makes the change they report. */
export function recordOutbox(tx: Transaction, entries: readonly NewOutboxEntry[]): Promise<void> {
  return insertOutboxEntries(tx, entries);
}

/** After the commit: wakes the relays at once (best effort; the relays poll anyway). */
export function kickOutbox(queues: Pick<Queues, "redis" | "prefix">): void {
  void queues.redis.publish(`${queues.prefix}:${OUTBOX_KICK}`, "1").catch(() => undefined);
}
