import type { MessageStatus, Principal } from "@svc/core";
import { listMessages as listMessageLog, type PrismaClient } from "@svc/store";
import { pageWindow, toPage, type Page, type PageRequest } from "../shared/paging";
import { pageForRecipient } from "../shared/recipient-filter";
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
  return pageForRecipient(prisma, query.recipient, async (recipientId) => {
    const filter = {
      recipientId,
      status: query.status,
      eventId: query.event_id,
      broadcastId: query.broadcast_id,
      agentKey: query.agent,
      onlyAgentKey: principal.agentKey,
    };
    return toPage(await listMessageLog(prisma, filter, window), window, (row) => row.id, serializeMessage);
  });
}
