import type { MessageStatus, Principal } from "@svc/core";
import { findRecipientId, listMessages as listMessageLog, type PrismaClient } from "@svc/store";
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
  let recipientId: string | undefined;
  if (query.recipient !== undefined) {
    // By internal id, which the (recipient_id, created_at) index serves.
    const id = await findRecipientId(prisma, query.recipient);
    if (id === null) return { items: [], next_cursor: null };
    recipientId = id;
  }
  const rows = await listMessageLog(
    prisma,
    {
      recipientId,
      status: query.status,
      eventId: query.event_id,
      broadcastId: query.broadcast_id,
      agentKey: query.agent,
      onlyAgentKey: principal.agentKey,
    },
    window,
  );
  return toPage(rows, window, (row) => row.id, serializeMessage);
}
