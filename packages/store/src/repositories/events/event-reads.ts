import type { EventOutcomeRow, EventRow } from "../../rows";
import type { PrismaClientOrTransaction } from "../../transaction";
import { pageArgs, type PageWindow } from "../paging";

export type EventWithOutcomes = EventRow & { outcomes: EventOutcomeRow[] };

export function findEvent(db: PrismaClientOrTransaction, id: string): Promise<EventRow | null> {
  return db.event.findUnique({ where: { id } });
}

export function findEventWithOutcomes(
  db: PrismaClientOrTransaction,
  id: string,
): Promise<EventWithOutcomes | null> {
  return db.event.findUnique({ where: { id }, include: { outcomes: true } });
}

/** One page of events newest first; `onlyAgentKey` limits it to that agent's own events. */
export function listEvents(
  db: PrismaClientOrTransaction,
  filters: { onlyAgentKey: string | null },
  window: PageWindow,
): Promise<EventWithOutcomes[]> {
  const page = pageArgs(window, "id");
  const own = filters.onlyAgentKey ? { agent_key: filters.onlyAgentKey } : {};
  return db.event.findMany({
    where: { AND: [page.where, own] },
    orderBy: page.orderBy,
    take: page.take,
    include: { outcomes: true },
  });
}

export function findOutcome(
  db: PrismaClientOrTransaction,
  eventId: string,
  ruleKey: string,
): Promise<EventOutcomeRow | null> {
  return db.eventOutcome.findUnique({
    where: { event_id_rule_key: { event_id: eventId, rule_key: ruleKey } },
  });
}

/** The outcomes of an event that name a message or a digest. */
export function outcomesWithResults(
  db: PrismaClientOrTransaction,
  eventId: string,
): Promise<Pick<EventOutcomeRow, "message_id" | "digest_id">[]> {
  return db.eventOutcome.findMany({
    where: { event_id: eventId, OR: [{ message_id: { not: null } }, { digest_id: { not: null } }] },
    select: { message_id: true, digest_id: true },
  });
}

/** Ids of events still `pending` that were accepted before `before`, oldest first. */
export async function pendingEventIdsBefore(
  db: PrismaClientOrTransaction,
  before: Date,
  limit: number,
): Promise<string[]> {
  const rows = await db.event.findMany({
    where: { status: "pending", created_at: { lt: before } },
    orderBy: { created_at: "asc" },
    take: limit,
    select: { id: true },
  });
  return rows.map((row) => row.id);
}
