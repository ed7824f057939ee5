import type { InboxFilter, InboxItemState } from "@svc/core";
import { Prisma } from "../../generated/prisma/client";
import { pageArgs, type PageWindow } from "../paging";
import { prismaOf, transactionOf, type Database, type Transaction } from "../../transaction";

// A person's inbox items (docs/inbox.md). Every write that changes an item takes the next value of
// the items' `seq` sequence while the caller holds the person's inbox lock (locks.ts `lockInbox`),
// so one person's changes commit in `seq` order and streams resume from a position without a gap.

export type InboxItemRow = Prisma.InboxItemModel;

export interface InboxCounts {
  unread: number;
  unseen: number;
  total: number;
}

export interface NewInboxItem {
  id: string;
  recipientId: string;
  messageId: string;
  channel: string;
  title: string;
  body: string;
  url: string | null;
  category: string;
  importance: Prisma.InboxItemModel["importance"];
  hasLinks: boolean;
  createdAt: Date;
}

const NEXT_SEQ = Prisma.sql`nextval(pg_get_serial_sequence('inbox_items', 'seq'))`;

/** What delivering messages to inboxes needs of them (messages gone, e.g. erased, are left out). */
export function findMessagesForInbox(
  db: Database,
  messageIds: readonly string[],
): Promise<
  {
    id: string;
    recipient_id: string;
    content: Prisma.JsonValue;
    category: string;
    importance: NewInboxItem["importance"];
  }[]
> {
  return prismaOf(db).message.findMany({
    where: { id: { in: [...messageIds] } },
    select: { id: true, recipient_id: true, content: true, category: true, importance: true },
  });
}

/**
 * Writes each message's item unless it has one (a repeated delivery), one position each; returns
 * the new rows' ids, people and positions. The caller holds the people's inbox locks.
 */
export async function insertInboxItems(
  tx: Transaction,
  items: readonly NewInboxItem[],
): Promise<{ id: string; recipient_id: string; seq: bigint }[]> {
  if (items.length === 0) return [];
  const column = <K extends keyof NewInboxItem>(key: K) => items.map((item) => item[key]);
  // nextval in a subquery's select list runs once per row; the outer select uses it twice.
  return transactionOf(tx).$queryRaw<{ id: string; recipient_id: string; seq: bigint }[]>(Prisma.sql`
    INSERT INTO inbox_items (id, recipient_id, message_id, channel, title, body, url, category, importance,
                             has_links, seq, created_seq, created_at)
    SELECT id, recipient_id, message_id, channel, title, body, url, category, importance::"Importance",
           has_links, seq, seq, created_at
      FROM (SELECT v.*, ${NEXT_SEQ} AS seq
              FROM unnest(${column("id")}::text[], ${column("recipientId")}::text[], ${column("messageId")}::text[],
                          ${column("channel")}::text[], ${column("title")}::text[], ${column("body")}::text[],
                          ${column("url")}::text[], ${column("category")}::text[], ${column("importance")}::text[],
                          ${column("hasLinks")}::boolean[], ${column("createdAt")}::timestamptz[])
                AS v(id, recipient_id, message_id, channel, title, body, url, category, importance, has_links, created_at)
           ) AS numbered
    ON CONFLICT (message_id) DO NOTHING
    RETURNING id, recipient_id, seq`);
}

/** The person's item (null for an unknown id or someone else's item). */
export function findInboxItem(
  db: Database,
  recipientId: string,
  itemId: string,
): Promise<InboxItemRow | null> {
  return prismaOf(db).inboxItem.findFirst({ where: { id: itemId, recipient_id: recipientId } });
}

/** Sets an item's state and gives it the next position; the caller holds the person's inbox lock. */
export async function updateInboxItemState(
  tx: Transaction,
  itemId: string,
  state: InboxItemState,
): Promise<InboxItemRow> {
  const rows = await transactionOf(tx).$queryRaw<InboxItemRow[]>(Prisma.sql`
    UPDATE inbox_items
       SET seen_at = ${state.seen_at}, read_at = ${state.read_at}, archived_at = ${state.archived_at}, seq = ${NEXT_SEQ}
     WHERE id = ${itemId}
    RETURNING *`);
  return rows[0]!;
}

/**
 * Marks every live (not archived) item of the person seen, or read (and seen); each changed item
 * takes a position. Returns how many changed. The caller holds the person's inbox lock.
 */
export async function markAllInboxItems(
  tx: Transaction,
  recipientId: string,
  mark: "seen" | "read",
  now: Date,
): Promise<number> {
  return mark === "seen"
    ? transactionOf(tx).$executeRaw(Prisma.sql`
        UPDATE inbox_items SET seen_at = ${now}, seq = ${NEXT_SEQ}
         WHERE recipient_id = ${recipientId} AND archived_at IS NULL AND seen_at IS NULL`)
    : transactionOf(tx).$executeRaw(Prisma.sql`
        UPDATE inbox_items SET read_at = ${now}, seen_at = COALESCE(seen_at, ${now}), seq = ${NEXT_SEQ}
         WHERE recipient_id = ${recipientId} AND archived_at IS NULL AND read_at IS NULL`);
}

const FILTERS: Record<InboxFilter, Prisma.InboxItemWhereInput> = {
  all: { archived_at: null },
  unread: { archived_at: null, read_at: null },
  unseen: { archived_at: null, seen_at: null },
  archived: { archived_at: { not: null } },
};

/** A page of the person's items, newest first (`limit + 1` rows, see paging.ts). */
export function listInboxItems(
  db: Database,
  recipientId: string,
  filter: InboxFilter,
  window: PageWindow,
): Promise<InboxItemRow[]> {
  const { where, ...page } = pageArgs(window, "id");
  return prismaOf(db).inboxItem.findMany({
    where: { AND: [{ recipient_id: recipientId }, FILTERS[filter], where] },
    ...page,
  });
}

/** Unread, unseen and all items of the person, archived ones not counted. */
export async function countInboxItems(db: Database, recipientId: string): Promise<InboxCounts> {
  const [row] = await prismaOf(db).$queryRaw<InboxCounts[]>(Prisma.sql`
    SELECT count(*) FILTER (WHERE read_at IS NULL)::int AS unread,
           count(*) FILTER (WHERE seen_at IS NULL)::int AS unseen,
           count(*)::int AS total
      FROM inbox_items WHERE recipient_id = ${recipientId} AND archived_at IS NULL`);
  return row ?? { unread: 0, unseen: 0, total: 0 };
}

/**
 * Items first handed to a client now: stamps `received_at` once and returns their messages (which
 * become `delivered`). A stamp already made (another client, another process) is not repeated.
 */
export async function markInboxItemsReceived(
  db: Database,
  itemIds: readonly string[],
  at: Date,
): Promise<string[]> {
  if (itemIds.length === 0) return [];
  const rows = await prismaOf(db).$queryRaw<{ message_id: string }[]>(Prisma.sql`
    UPDATE inbox_items SET received_at = ${at}
     WHERE id = ANY(${[...itemIds]}::text[]) AND received_at IS NULL
    RETURNING message_id`);
  return rows.map((row) => row.message_id);
}

/** What filling an item's link placeholders needs of its message (only items with `has_links`). */
export interface InboxLinkRow {
  id: string;
  recipient_id: string;
  link_nonce: string;
  unsubscribe_token_hash: string | null;
  tracking_token_hash: string | null;
  /** Null when the category was deleted (it then counts as allowing unsubscribing). */
  allow_unsubscribe: boolean | null;
}

export function findInboxLinkRows(db: Database, messageIds: readonly string[]): Promise<InboxLinkRow[]> {
  if (messageIds.length === 0) return Promise.resolve([]);
  return prismaOf(db).$queryRaw<InboxLinkRow[]>(Prisma.sql`
    SELECT m.id, m.recipient_id, m.link_nonce, m.unsubscribe_token_hash, m.tracking_token_hash, c.allow_unsubscribe
      FROM messages m LEFT JOIN categories c ON c.key = m.category
     WHERE m.id = ANY(${[...messageIds]}::text[])`);
}
