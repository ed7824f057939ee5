import { AppError, type Principal } from "@svc/core";
import {
  findDigestPage,
  findDigestWithItems,
  type DigestRow,
  type DigestWithItems,
  type RootDatabase,
} from "@svc/store";
import { pageWindow, toPage, type Page, type PageRequest } from "../shared/paging";
import { pageForRecipient } from "../shared/recipient-filter";

/** Digest record (docs/digests.md, "API"); `items` are the kept events, oldest first. */
export interface DigestView {
  id: string;
  rule: string;
  /** External id. */
  recipient: string;
  key: string;
  status: DigestRow["status"];
  status_reason: string | null;
  created_at: string;
  closes_at: string;
  count: number;
  items: { event_id: string; data: unknown }[];
  sent_at: string | null;
  message_id: string | null;
}

export interface ListDigestsQuery extends PageRequest {
  /** External id. */
  recipient?: string;
  status?: DigestRow["status"];
}

export function serializeDigest(row: DigestWithItems): DigestView {
  return {
    id: row.id,
    rule: row.rule_key,
    recipient: row.recipient_external_id,
    key: row.key,
    status: row.status,
    status_reason: row.status_reason,
    created_at: row.created_at.toISOString(),
    closes_at: row.closes_at.toISOString(),
    count: row.count,
    items: [...row.items]
      .sort((a, b) => a.position - b.position)
      .map((item) => ({ event_id: item.event_id, data: item.data })),
    sent_at: row.sent_at?.toISOString() ?? null,
    message_id: row.message_id,
  };
}

/** Agent keys see no digests: a digest groups other senders' events too (docs/digests.md, "API"). */
function assertMaySeeDigests(principal: Principal): void {
  if (principal.agentKey !== null) throw new AppError("forbidden", "agent-bound keys cannot reach digests");
}

export async function loadDigestFor(
  prisma: RootDatabase,
  principal: Principal,
  id: string,
): Promise<DigestWithItems> {
  assertMaySeeDigests(principal);
  const row = await findDigestWithItems(prisma, id);
  if (!row) throw new AppError("not_found", `no digest '${id}'`);
  return row;
}

export async function getDigest(
  { prisma }: { prisma: RootDatabase },
  principal: Principal,
  id: string,
): Promise<DigestView> {
  return serializeDigest(await loadDigestFor(prisma, principal, id));
}

/** Newest first, filtered by recipient (external id) and status. */
export async function listDigests(
  { prisma }: { prisma: RootDatabase },
  principal: Principal,
  query: ListDigestsQuery,
): Promise<Page<DigestView>> {
  assertMaySeeDigests(principal);
  const window = pageWindow(query);
  return pageForRecipient(prisma, query.recipient, async (recipientId) => {
    const rows = await findDigestPage(prisma, { recipientId, status: query.status }, window);
    return toPage(rows, window, (row) => row.id, serializeDigest);
  });
}
