import type { MessageStatus, Prisma } from "../../generated/prisma/client";
import type { MessageRow } from "../../rows";
import { pageArgs, type PageWindow } from "../paging";
import { prismaOf, type Database } from "../../transaction";

// Reads of single messages and of the message log.

export type DeliveryAttemptRow = Prisma.DeliveryAttemptModel;
export type MessageWithAttempts = MessageRow & { attempts: DeliveryAttemptRow[] };

export function findMessage(db: Database, id: string): Promise<MessageRow | null> {
  return prismaOf(db).message.findUnique({ where: { id } });
}

export function findMessageWithAttempts(db: Database, id: string): Promise<MessageWithAttempts | null> {
  return prismaOf(db).message.findUnique({ where: { id }, include: { attempts: true } });
}

/** The message a tracking token names (by the token's SHA-256), if any. */
export function findMessageIdByTrackingHash(
  db: Database,
  trackingTokenHash: string,
): Promise<{ id: string } | null> {
  return prismaOf(db).message.findUnique({
    where: { tracking_token_hash: trackingTokenHash },
    select: { id: true },
  });
}

export interface MessageLogFilters {
  /** The person's external id; found in the same statement (an unknown one gives an empty page). */
  recipientExternalId?: string;
  status?: MessageStatus;
  eventId?: string;
  broadcastId?: string;
  agentKey?: string;
  /** An agent key's own messages only, whatever else is asked for. */
  onlyAgentKey?: string | null;
}

/** One page of the message log, newest first, with each message's attempts. */
export function listMessages(
  db: Database,
  filters: MessageLogFilters,
  window: PageWindow,
): Promise<MessageWithAttempts[]> {
  const page = pageArgs(window, "id");
  const where: Prisma.MessageWhereInput[] = [page.where];
  if (filters.recipientExternalId !== undefined)
    where.push({ recipient: { is: { external_id: filters.recipientExternalId } } });
  if (filters.status !== undefined) where.push({ status: filters.status });
  if (filters.eventId !== undefined) where.push({ event_id: filters.eventId });
  if (filters.broadcastId !== undefined) where.push({ broadcast_id: filters.broadcastId });
  if (filters.agentKey !== undefined) where.push({ agent_key: filters.agentKey });
  if (filters.onlyAgentKey) where.push({ agent_key: filters.onlyAgentKey });
  return prismaOf(db).message.findMany({
    where: { AND: where },
    orderBy: page.orderBy,
    take: page.take,
    include: { attempts: true },
  });
}

/** Of these messages, the ones still `queued`, with what their delivery job needs. */
export function queuedMessagesAmong(
  db: Database,
  ids: readonly string[],
): Promise<Pick<MessageRow, "id" | "generation" | "send_at">[]> {
  return prismaOf(db).message.findMany({
    where: { id: { in: [...ids] }, status: "queued" },
    select: { id: true, generation: true, send_at: true },
  });
}
