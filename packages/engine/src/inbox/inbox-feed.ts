import {
  AppError,
  applyInboxAction,
  engagementOfInboxAction,
  type InboxFilter,
  type InboxItemAction,
} from "@svc/core";
import type { SvcConfig } from "@svc/config";
import type { Queues } from "@svc/queue";
import {
  $transaction,
  countInboxItems,
  findInboxItem,
  listInboxItems,
  lockInbox,
  markAllInboxItems,
  markInboxItemsReceived,
  updateInboxItemState,
  type InboxCounts,
  type RootDatabase,
} from "@svc/store";
import { recordDeliveries, recordEngagement } from "../engagement/record-engagement";
import { kickOutbox, recordOutbox } from "../outbox/outbox";
import { pageWindow, toPage, type Page, type PageRequest } from "../shared/paging";
import { INBOX_TOPICS, inboxChangeEntry } from "../shared/inbox-changes";
import { inboxItemViews, type InboxItemView } from "./inbox-item-view";
import type { InboxPerson } from "./inbox-tokens";

// The feed API (docs/inbox.md "The feed API"): a person's items, counts and actions, all scoped to
// the person an inbox token names; another person's item is simply not found. Every change takes
// the person's inbox lock and writes its outbox entry in the same transaction.

export interface InboxFeedDeps {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "secrets" | "api">;
  queues: Pick<Queues, "redis" | "prefix">;
  now: () => Date;
}

export type { InboxCounts };

/** GET /v1/inbox/items: newest first; handing items to a client makes their messages `delivered`. */
export async function listInbox(
  deps: InboxFeedDeps,
  person: InboxPerson,
  query: PageRequest & { filter?: InboxFilter },
): Promise<Page<InboxItemView>> {
  const window = pageWindow(query);
  const rows = await listInboxItems(deps.prisma, person.recipientId, query.filter ?? "all", window);
  const page = rows.slice(0, window.limit);
  await recordInboxReceived(
    deps,
    page.filter((row) => row.received_at === null).map((row) => row.id),
  );
  const views = new Map((await inboxItemViews(deps, page)).map((view) => [view.id, view]));
  return toPage(
    rows,
    window,
    (row) => row.id,
    (row) => views.get(row.id)!,
  );
}

/** GET /v1/inbox/counts. */
export function inboxCounts(deps: Pick<InboxFeedDeps, "prisma">, person: InboxPerson): Promise<InboxCounts> {
  return countInboxItems(deps.prisma, person.recipientId);
}

/**
 * POST /v1/inbox/items/{id}/<action>: the item after the action. Reading reports `opened` on its
 * message, a click through the component `opened` and `clicked` (both end fatigue).
 */
export async function actOnInboxItem(
  deps: InboxFeedDeps,
  person: InboxPerson,
  itemId: string,
  action: InboxItemAction,
): Promise<InboxItemView> {
  const now = deps.now();
  const { item, changed } = await $transaction(deps.prisma, async (tx) => {
    await lockInbox(tx, person.recipientId);
    const current = await findInboxItem(tx, person.recipientId, itemId);
    if (!current) throw new AppError("not_found", `no inbox item '${itemId}'`);
    const next = applyInboxAction(action, current, now);
    if (!next) return { item: current, changed: false };
    const updated = await updateInboxItemState(tx, current.id, next);
    await recordOutbox(tx, [inboxChangeEntry(person.recipientId, INBOX_TOPICS.update, updated.seq)]);
    return { item: updated, changed: true };
  });
  if (changed) kickOutbox(deps.queues);
  for (const type of engagementOfInboxAction(action))
    await recordEngagement(deps, item.message_id, type, "inbox");
  const [view] = await inboxItemViews(deps, [item]);
  return view!;
}

/**
 * POST /v1/inbox/seen-all and /v1/inbox/read-all: every live item at once; the counts after. Marking
 * everything read is a dismissal, not engagement: it reports nothing on the messages.
 */
export async function markAllInbox(
  deps: InboxFeedDeps,
  person: InboxPerson,
  mark: "seen" | "read",
): Promise<InboxCounts> {
  const now = deps.now();
  const changed = await $transaction(deps.prisma, async (tx) => {
    await lockInbox(tx, person.recipientId);
    const count = await markAllInboxItems(tx, person.recipientId, mark, now);
    // One entry for the lot: streams read every change after their position anyway.
    if (count > 0) await recordOutbox(tx, [inboxChangeEntry(person.recipientId, INBOX_TOPICS.update, null)]);
    return count;
  });
  if (changed > 0) kickOutbox(deps.queues);
  return countInboxItems(deps.prisma, person.recipientId);
}

/**
 * Items handed to a client for the first time (docs/inbox.md "Delivered"): their messages become
 * `delivered`, through the one path every `delivered` report takes.
 */
export async function recordInboxReceived(
  deps: Pick<InboxFeedDeps, "prisma" | "now">,
  itemIds: readonly string[],
): Promise<void> {
  if (itemIds.length === 0) return;
  await recordDeliveries(deps, (tx) => markInboxItemsReceived(tx, itemIds, deps.now()), "inbox");
}
