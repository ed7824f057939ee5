import { AppError, type Principal } from "@svc/core";
import { findEventWithOutcomes, listEvents as listEventLog, type RootDatabase } from "@svc/store";
import { pageWindow, toPage, type PageRequest } from "../shared/paging";
import { serializeEvent } from "./serialize-event";

type Deps = { prisma: RootDatabase };

/** GET /v1/events: newest first; agent keys see only the events they sent (docs/events.md). */
export async function listEvents({ prisma }: Deps, principal: Principal, request: PageRequest) {
  const window = pageWindow(request);
  const rows = await listEventLog(prisma, { onlyAgentKey: principal.agentKey }, window);
  return toPage(rows, window, (row) => row.id, serializeEvent);
}

/** GET /v1/events/{id}: another sender's event is 403 for an agent key (docs/events.md). */
export async function getEvent({ prisma }: Deps, principal: Principal, id: string) {
  const row = await findEventWithOutcomes(prisma, id);
  if (!row) throw new AppError("not_found", `no event '${id}'`);
  if (principal.agentKey && row.agent_key !== principal.agentKey) {
    throw new AppError("forbidden", "agent keys may read only the events they sent");
  }
  return serializeEvent(row);
}
