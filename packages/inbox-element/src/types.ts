/** An item as the feed API and the stream send it (docs/inbox.md "The feed API"). */
export interface InboxItem {
  id: string;
  message_id: string;
  title: string;
  body: string;
  url: string | null;
  category: string;
  importance: "low" | "normal" | "high" | "critical";
  created_at: string;
  seen_at: string | null;
  read_at: string | null;
  archived_at: string | null;
}

export interface InboxCounts {
  unread: number;
  unseen: number;
  total: number;
}

export interface InboxPage {
  items: InboxItem[];
  next_cursor: string | null;
}
