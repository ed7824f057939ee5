import { AppError, type Principal } from "@svc/core";
import { pageArgs, type PrismaClient } from "@svc/store";
import { pageWindow, toPage, type Page, type PageRequest } from "../shared/paging";
import { serializeLedgerEntry, type LedgerEntryView } from "./serialize-ledger-entry";

/** Agent keys never read anyone's preferences or their history (SPEC 1.4). */
export function assertMayReadPreferences(principal: Principal): void {
  if (principal.agentKey)
    throw new AppError("forbidden", "agent keys may not read preferences or the consent ledger");
}

/** GET /v1/recipients/{external_id}/preferences/history: the consent ledger, newest first. */
export async function listPreferenceHistory(
  deps: { prisma: PrismaClient },
  principal: Principal,
  externalId: string,
  request: PageRequest,
): Promise<Page<LedgerEntryView>> {
  assertMayReadPreferences(principal);
  const person = await deps.prisma.recipient.findUnique({
    where: { external_id: externalId },
    select: { id: true },
  });
  if (!person) throw new AppError("not_found", `no recipient '${externalId}'`);
  const window = pageWindow(request);
  const q = pageArgs(window, "id");
  const rows = await deps.prisma.consentEntry.findMany({
    where: { ...q.where, recipient_id: person.id },
    orderBy: q.orderBy,
    take: q.take,
  });
  return toPage(rows, window, (row) => row.id, serializeLedgerEntry);
}
