import { AppError, type Principal } from "@svc/core";
import { findLedgerPage, findRecipientId, type RootDatabase } from "@svc/store";
import { pageWindow, toPage, type Page, type PageRequest } from "../shared/paging";
import { serializeLedgerEntry, type LedgerEntryView } from "./serialize-ledger-entry";

/** Agent keys never read anyone's preferences or their history (docs/preferences.md, "Agent keys"). */
function assertMayReadPreferences(principal: Principal): void {
  if (principal.agentKey)
    throw new AppError("forbidden", "agent keys may not read preferences or the consent ledger");
}

/** GET /v1/recipients/{external_id}/preferences/history: the consent ledger, newest first. */
export async function listPreferenceHistory(
  deps: { prisma: RootDatabase },
  principal: Principal,
  externalId: string,
  request: PageRequest,
): Promise<Page<LedgerEntryView>> {
  assertMayReadPreferences(principal);
  const personId = await findRecipientId(deps.prisma, externalId);
  if (personId === null) throw new AppError("not_found", `no recipient '${externalId}'`);
  const window = pageWindow(request);
  const rows = await findLedgerPage(deps.prisma, personId, window);
  return toPage(rows, window, (row) => row.id, serializeLedgerEntry);
}
