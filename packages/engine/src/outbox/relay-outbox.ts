import type { NoticeBus } from "@svc/queue";
import {
  $transaction,
  takeOutboxEntries,
  type OutboxEntryRow,
  type RootDatabase,
  type Transaction,
} from "@svc/store";

// One pass of the outbox relay (docs/outbox.md "The relay"): in one transaction, take a batch of
// entries (deleting them), let each consumer write what they cause (webhook deliveries…), publish
// the entries that name a notice channel, and commit; then run what the consumers left for after
// the commit (enqueueing jobs, whose loss a sweep covers). A crash before the commit leaves the
// entries for the next pass, so each is fanned out at least once and its writes made exactly once.

export type { OutboxEntryRow };

export interface OutboxConsumer {
  /** Named in logs. */
  name: string;
  /**
   * Writes what `entries` cause under the relay's transaction; returns work for after the commit.
   * It sees every entry of the batch and picks its own topics.
   */
  consume(tx: Transaction, entries: readonly OutboxEntryRow[]): Promise<(() => Promise<void>) | void>;
}

export interface RelayDeps {
  prisma: RootDatabase;
  notices: Pick<NoticeBus, "channel" | "publish">;
  consumers: readonly OutboxConsumer[];
}

/** The message published on an entry's channel: its topic, payload and id (listeners drop repeats by id). */
export interface OutboxNotice {
  id: string;
  topic: string;
  payload: Record<string, unknown>;
}

/** Relays up to `limit` entries; returns how many it took. */
export async function relayOutboxOnce(deps: RelayDeps, limit: number): Promise<number> {
  const { taken, after } = await $transaction(deps.prisma, async (tx) => {
    const entries = await takeOutboxEntries(tx, limit);
    if (entries.length === 0) return { taken: 0, after: [] };
    const followUps: (() => Promise<void>)[] = [];
    for (const consumer of deps.consumers) {
      const followUp = await consumer.consume(tx, entries);
      if (followUp) followUps.push(followUp);
    }
    // Before the commit: a failed publish rolls the batch back, so a notice is never lost; a
    // crash after publishing repeats it, which listeners drop by id.
    await Promise.all(
      entries
        .filter((entry) => entry.notify !== null)
        .map((entry) =>
          deps.notices.publish(
            deps.notices.channel(entry.notify!),
            JSON.stringify({
              id: entry.id,
              topic: entry.topic,
              payload: entry.payload,
            } satisfies OutboxNotice),
          ),
        ),
    );
    return { taken: entries.length, after: followUps };
  });
  for (const followUp of after) await followUp();
  return taken;
}
