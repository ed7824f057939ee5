import type { MessageStatus, Principal } from "@svc/core";
import { listMessages as listMessageLog, type RootDatabase } from "@svc/store";
import { pageWindow, toPage, type Page, type PageRequest } from "../shared/paging";
import { serializeMessage, type MessageView } from "../shared/serialize-message";

export interface ListMessagesQuery extends PageRequest {
  /** External id. */
  recipient?: string;
  status?: MessageStatus;
  event_id?: string;
  broadcast_id?: string;
  /** Agent key. */
  agent?: string;
}

/**
 * Newest first. Agent keys see only their own messages, whatever `agent` they ask for. The person
 * is found by external id in the page's own statement (one round trip less than looking them up
 * first: this read is what people watch while a broadcast runs).
 */
export async function listMessages(
  { prisma }: { prisma: RootDatabase },
  principal: Principal,
  query: ListMessagesQuery,
): Promise<Page<MessageView>> {
  const window = pageWindow(query);
  const filter = {
    recipientExternalId: query.recipient,
    status: query.status,
    eventId: query.event_id,
    broadcastId: query.broadcast_id,
    agentKey: query.agent,
    onlyAgentKey: principal.agentKey,
  };
  return toPage(await listMessageLog(prisma, filter, window), window, (row) => row.id, serializeMessage);
}
