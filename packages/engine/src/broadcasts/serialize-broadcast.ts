import { MESSAGE_STATUSES, type Importance, type MessageStatus } from "@svc/core";
import {
  countBroadcastMessagesByStatus,
  sumChunkProgress,
  type BroadcastRow,
  type Database,
} from "@svc/store";

// The broadcast record with its progress (docs/broadcasts.md "Progress"): read from the chunks
// (members handled, skipped) and the messages (per status) each time, so it is current while it runs.

type BroadcastCounts = Record<MessageStatus, number>;

export interface BroadcastView {
  id: string;
  name: string;
  template: string;
  category: string;
  channels: string[];
  importance: Importance;
  data: unknown;
  audience: unknown;
  send_at: string | null;
  rate_per_second: number | null;
  status: BroadcastRow["status"];
  status_reason: string | null;
  total: number | null;
  processed: number;
  skipped: number;
  counts: BroadcastCounts;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
}

export async function serializeBroadcast(db: Database, row: BroadcastRow): Promise<BroadcastView> {
  const drafted = row.status === "draft";
  const [progress, byStatus] = drafted
    ? [{ processed: 0, skipped: 0 }, {}]
    : await Promise.all([sumChunkProgress(db, row.id), countBroadcastMessagesByStatus(db, row.id)]);
  const counts = Object.fromEntries(
    MESSAGE_STATUSES.map((status) => [status, (byStatus as Partial<BroadcastCounts>)[status] ?? 0]),
  ) as BroadcastCounts;
  return {
    id: row.id,
    name: row.name,
    template: row.template,
    category: row.category,
    channels: row.channels,
    importance: row.importance,
    data: row.data,
    audience: row.audience,
    send_at: row.send_at?.toISOString() ?? null,
    rate_per_second: row.rate_per_second,
    status: row.status,
    status_reason: row.status_reason,
    total: row.total ?? listedCount(row.audience),
    processed: progress.processed,
    skipped: progress.skipped,
    counts,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    completed_at: row.completed_at?.toISOString() ?? null,
  };
}

// A list's size is known from the start; a filter's once it has been evaluated (`total` set).
function listedCount(audience: unknown): number | null {
  const count = (audience as { recipient_count?: unknown } | null)?.recipient_count;
  return typeof count === "number" ? count : null;
}
