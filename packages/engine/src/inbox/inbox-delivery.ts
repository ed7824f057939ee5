import { hasLinkPlaceholders, newId, type Importance } from "@svc/core";
import { accepted, permanent, type InboxStore, type SendResult } from "@svc/providers";
import type { Queues } from "@svc/queue";
import {
  $transaction,
  findMessagesForInbox,
  insertInboxItems,
  lockInboxes,
  type NewInboxItem,
  type RootDatabase,
} from "@svc/store";
import { contentForChannel, type MessageContent } from "../compose/message-content";
import { microBatcher } from "../shared/micro-batch";
import { kickOutbox, recordOutbox } from "../outbox/outbox";
import { INBOX_TOPICS, inboxChangeEntry } from "../shared/inbox-changes";

// Delivering on an inbox channel (docs/inbox.md "The channel"): the message's stored content for
// the channel becomes the person's item, with its outbox entry, in one transaction under the
// person's inbox lock. Link placeholders stay in the item (no raw token is stored); the feed fills
// them when it serves the item. A repeated delivery finds the item and writes nothing. The
// deliveries a worker runs at once share one transaction of four statements (micro-batch.ts).

export interface InboxDeliveryDeps {
  prisma: RootDatabase;
  queues: Pick<Queues, "redis" | "prefix">;
  now: () => Date;
}

interface Delivery {
  messageId: string;
  channel: string;
}

/** The store the `inbox` provider delivers into (ProviderContext.inbox): one per process. */
export function inboxStore(deps: InboxDeliveryDeps): InboxStore {
  const batch = microBatcher((deliveries: Delivery[]) => deliverToInboxes(deps, deliveries));
  return { deliver: (request) => batch.add({ messageId: request.messageId, channel: request.channel }) };
}

async function deliverToInboxes(deps: InboxDeliveryDeps, deliveries: Delivery[]): Promise<SendResult[]> {
  const now = deps.now();
  const { found, created } = await $transaction(deps.prisma, async (tx) => {
    const messages = new Map(
      (
        await findMessagesForInbox(
          tx,
          deliveries.map((d) => d.messageId),
        )
      ).map((m) => [m.id, m]),
    );
    await lockInboxes(
      tx,
      [...messages.values()].map((m) => m.recipient_id),
    );
    const items: NewInboxItem[] = [];
    const seen = new Set<string>();
    for (const delivery of deliveries) {
      const message = messages.get(delivery.messageId);
      if (!message || seen.has(delivery.messageId)) continue;
      seen.add(delivery.messageId);
      const content = contentForChannel(message.content as unknown as MessageContent, delivery.channel);
      items.push({
        id: newId("inboxItem", now.getTime()),
        recipientId: message.recipient_id,
        messageId: message.id,
        channel: delivery.channel,
        title: content.title,
        body: content.body,
        url: content.url,
        category: message.category,
        importance: message.importance as Importance,
        hasLinks: [content.title, content.body, content.url ?? ""].some(hasLinkPlaceholders),
        createdAt: now,
      });
    }
    const inserted = await insertInboxItems(tx, items);
    await recordOutbox(
      tx,
      inserted.map((row) => inboxChangeEntry(row.recipient_id, INBOX_TOPICS.item, row.seq)),
    );
    return { found: messages, created: inserted.length };
  });
  if (created > 0) kickOutbox(deps.queues);
  return deliveries.map((d) =>
    found.has(d.messageId) ? accepted() : permanent("inbox: the message no longer exists"),
  );
}
