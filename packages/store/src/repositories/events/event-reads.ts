import type { EventOutcomeRow, EventRow } from "../../rows";
import { pageArgs, type PageWindow } from "../paging";
import { prismaOf, type Database } from "../../transaction";

export type EventWithOutcomes = EventRow & { outcomes: EventOutcomeRow[] };

export function findEvent(db: Database, id: string): Promise<EventRow | null> {
  return prismaOf(db).event.findUnique({ where: { id } });
}

export function findEventWithOutcomes(db: Database, id: string): Promise<EventWithOutcomes | null> {
  return prismaOf(db).event.findUnique({ where: { id }, include: { outcomes: true } });
}

/** One page of events newest first; `onlyAgentKey` limits it to that agent's own events. */
export function listEvents(
  db: Database,
  filters: { onlyAgentKey: string | null },
  window: PageWindow,
): Promise<EventWithOutcomes[]> {
  const page = pageArgs(window, "id");
  const own = filters.onlyAgentKey ? { agent_key: filters.onlyAgentKey } : {};
  return prismaOf(db).event.findMany({
    where: { AND: [page.where, own] },
    orderBy: page.orderBy,
    take: page.take,
    include: { outcomes: true },
  });
}

export function findOutcome(db: Database, eventId: string, ruleKey: string): Promise<EventOutcomeRow | null> {
  return prismaOf(db).eventOutcome.findUnique({
    where: { event_id_rule_key: { event_id: eventId, rule_key: ruleKey } },
  });
}

/** The outcomes of an event that name a message or a digest. */
export function outcomesWithResults(
  db: Database,
  eventId: string,
): Promise<Pick<EventOutcomeRow, "message_id" | "digest_id">[]> {
  return prismaOf(db).eventOutcome.findMany({
    where: { event_id: eventId, OR: [{ message_id: { not: null } }, { digest_id: { not: null } }] },
    select: { message_id: true, digest_id: true },
  });
}

/** Ids of events still `pending` that were accepted before `before`, oldest first. */
export async function pendingEventIdsBefore(db: Database, before: Date, limit: number): Promise<string[]> {
  const rows = await prismaOf(db).event.findMany({
    where: { status: "pending", created_at: { lt: before } },
    orderBy: { created_at: "asc" },
    take: limit,
    select: { id: true },
  });
  return rows.map((row) => row.id);
}
