import type { MessageStatus, Principal } from "@svc/core";
import { pageArgs, type PrismaClient } from "@svc/store";
import { pageWindow, toPage, type Page, type PageRequest } from "../shared/paging";
import { serializeMessage, type MessageView } from "./serialize-message";

export interface ListMessagesQuery extends PageRequest {
  /** External id. */
  recipient?: string;
  status?: MessageStatus;
  event_id?: string;
  broadcast_id?: string;
  /** Agent key. */
  agent?: string;
}

/** Newest first. Agent keys see only their own messages, whatever `agent` they ask for. */
export async function listMessages(
  { prisma }: { prisma: PrismaClient },
  principal: Principal,
  query: ListMessagesQuery,
): Promise<Page<MessageView>> {
  const window = pageWindow(query);
  const q = pageArgs(window, "id");
  const filters: Record<string, unknown>[] = [];
  if (query.recipient !== undefined) {
    // By internal id, which the (recipient_id, created_at) index serves.
    const recipient = await prisma.recipient.findUnique({
      where: { external_id: query.recipient },
      select: { id: true },
    });
    if (!recipient) return { items: [], next_cursor: null };
    filters.push({ recipient_id: recipient.id });
  }
  if (query.status !== undefined) filters.push({ status: query.status });
  if (query.event_id !== undefined) filters.push({ event_id: query.event_id });
  if (query.broadcast_id !== undefined) filters.push({ broadcast_id: query.broadcast_id });
  if (query.agent !== undefined) filters.push({ agent_key: query.agent });
  if (principal.agentKey !== null) filters.push({ agent_key: principal.agentKey });
  const rows = await prisma.message.findMany({
    where: { AND: [...filters, q.where] },
    orderBy: q.orderBy,
    take: q.take,
    include: { attempts: true },
  });
  return toPage(rows, window, (row) => row.id, serializeMessage);
}
