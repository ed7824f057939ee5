import type { NewOutboxEntry } from "@svc/store";

// What an inbox change tells the streams (docs/inbox.md "The stream"): one outbox entry per change,
// written in the change's transaction and published by the relay on the person's notice channel,
// where every API process holding a stream of theirs listens. The entry carries ids and the
// position only; streams read the items themselves from Postgres.

export const INBOX_TOPICS = {
  /** A new item. */
  item: "inbox.item",
  /** Items changed (read, archived, …). */
  update: "inbox.update",
  /** The person's inbox tokens stopped working (preference token rotated, erasure). */
  revoked: "inbox.revoked",
} as const;
export type InboxTopic = (typeof INBOX_TOPICS)[keyof typeof INBOX_TOPICS];

/** The notice channel (under the Redis prefix) of one person's inbox. */
export const inboxNoticeChannel = (recipientId: string): string => `inbox:${recipientId}`;

/** The outbox entry of a change at `seq` (null: no position, a revocation). */
export function inboxChangeEntry(recipientId: string, topic: InboxTopic, seq: bigint | null): NewOutboxEntry {
  return {
    topic,
    payload:
      seq === null ? { recipient_id: recipientId } : { recipient_id: recipientId, seq: seq.toString() },
    notify: inboxNoticeChannel(recipientId),
  };
}
