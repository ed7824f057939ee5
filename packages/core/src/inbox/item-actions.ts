// What each inbox action does to an item (docs/inbox.md "The feed API"). Pure: the store applies the
// result under the person's inbox lock, and an action that changes nothing writes nothing.

export const INBOX_ITEM_ACTIONS = ["seen", "read", "unread", "archive", "unarchive", "click"] as const;
export type InboxItemAction = (typeof INBOX_ITEM_ACTIONS)[number];

export const INBOX_FILTERS = ["all", "unread", "unseen", "archived"] as const;
export type InboxFilter = (typeof INBOX_FILTERS)[number];

export interface InboxItemState {
  seen_at: Date | null;
  read_at: Date | null;
  archived_at: Date | null;
}

/** The item's state after `action`, or null when the action changes nothing. */
export function applyInboxAction(
  action: InboxItemAction,
  state: InboxItemState,
  now: Date,
): InboxItemState | null {
  const next: InboxItemState = { ...state };
  switch (action) {
    case "seen":
      next.seen_at ??= now;
      break;
    case "read":
    case "click":
      // A read item has been seen.
      next.read_at ??= now;
      next.seen_at ??= now;
      break;
    case "unread":
      next.read_at = null;
      break;
    case "archive":
      next.archived_at ??= now;
      break;
    case "unarchive":
      next.archived_at = null;
      break;
  }
  const same =
    next.seen_at === state.seen_at &&
    next.read_at === state.read_at &&
    next.archived_at === state.archived_at;
  return same ? null : next;
}

/**
 * The engagement an action reports on the item's message (both end fatigue): reading opens it,
 * following its link through the component clicks it. Repeats are recorded once per message.
 */
export function engagementOfInboxAction(action: InboxItemAction): ("opened" | "clicked")[] {
  if (action === "read") return ["opened"];
  if (action === "click") return ["opened", "clicked"];
  return [];
}
