import { fillLinkPlaceholders } from "@svc/core";
import type { SvcConfig } from "@svc/config";
import { findInboxLinkRows, type InboxItemRow, type RootDatabase } from "@svc/store";
import { batchDeliveryLinks } from "../delivery/delivery-links-batch";
import { linkUrlsFor } from "../delivery/send-to-channel";
import { requireSecretKey } from "../links/link-tokens";

// An inbox item as the feed and the streams show it (docs/inbox.md "The feed API"). Items keep
// their link placeholders; the few that hold one get them filled here with the person's own links,
// derived as delivery derives them (delivery-links-batch.ts), so no raw token is ever stored.

export interface InboxItemView {
  id: string;
  message_id: string;
  title: string;
  body: string;
  url: string | null;
  category: string;
  importance: string;
  created_at: string;
  seen_at: string | null;
  read_at: string | null;
  archived_at: string | null;
}

export interface InboxViewDeps {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "secrets" | "api">;
  now: () => Date;
}

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

export async function inboxItemViews(
  deps: InboxViewDeps,
  rows: readonly InboxItemRow[],
): Promise<InboxItemView[]> {
  const filled = await fillLinks(deps, rows);
  return rows.map((row) => {
    const content = filled.get(row.id) ?? row;
    return {
      id: row.id,
      message_id: row.message_id,
      title: content.title,
      body: content.body,
      url: content.url,
      category: row.category,
      importance: row.importance,
      created_at: row.created_at.toISOString(),
      seen_at: iso(row.seen_at),
      read_at: iso(row.read_at),
      archived_at: iso(row.archived_at),
    };
  });
}

type Content = { title: string; body: string; url: string | null };

async function fillLinks(deps: InboxViewDeps, rows: readonly InboxItemRow[]): Promise<Map<string, Content>> {
  const linked = rows.filter((row) => row.has_links);
  if (linked.length === 0) return new Map();
  const messages = new Map(
    (
      await findInboxLinkRows(
        deps.prisma,
        linked.map((row) => row.message_id),
      )
    ).map((m) => [m.id, m]),
  );
  const present = linked.filter((row) => messages.has(row.message_id));
  const links = await batchDeliveryLinks(
    deps.prisma,
    { secretKey: requireSecretKey(deps.config), publicUrl: deps.config.api.public_url },
    present.map((row) => ({
      ...messages.get(row.message_id)!,
      content: { title: row.title, body: row.body, url: row.url },
    })),
    deps.now(),
  );
  return new Map(
    present.map((row, i) => {
      // A deleted category no longer forbids unsubscribing (as at delivery).
      const urls = linkUrlsFor(links[i]!, messages.get(row.message_id)!.allow_unsubscribe ?? true);
      const url = row.url === null ? null : fillLinkPlaceholders(row.url, urls) || null;
      return [
        row.id,
        { title: fillLinkPlaceholders(row.title, urls), body: fillLinkPlaceholders(row.body, urls), url },
      ];
    }),
  );
}
