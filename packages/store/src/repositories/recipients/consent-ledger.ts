import type { Prisma } from "../../generated/prisma/client";
import type { ConsentEntryRow } from "../../rows";
import { pageArgs, type PageWindow } from "../paging";
import { prismaOf, transactionOf, type Database, type Transaction } from "../../transaction";

// The consent ledger (`consent_entries`): every preference change from any source and every
// opt-in record; and `consents`, the current opt-in per (person, category) with its expiry.

/** What an opt-in record adds to a ledger entry. */
export interface ConsentRecordFields {
  categories: string[];
  disclosure: string;
  disclosure_sha256: string;
  disclosure_version: string | null;
  expires_at: Date | null;
}

export interface NewLedgerEntry {
  id: string;
  recipient_id: string;
  source: ConsentEntryRow["source"];
  changes: Record<string, unknown>;
  provenance: Record<string, unknown>;
  record?: ConsentRecordFields;
  created_at: Date;
}

export async function insertLedgerEntry(tx: Transaction, entry: NewLedgerEntry): Promise<ConsentEntryRow> {
  const { record, changes, provenance, ...columns } = entry;
  return transactionOf(tx).consentEntry.create({
    data: {
      ...columns,
      changes: changes as Prisma.InputJsonValue,
      provenance: provenance as Prisma.InputJsonValue,
      ...record,
    },
  });
}

/** Adds the opt-in record to an entry written in the same transaction. */
export async function addConsentRecord(
  tx: Transaction,
  entryId: string,
  record: ConsentRecordFields,
): Promise<ConsentEntryRow> {
  return transactionOf(tx).consentEntry.update({ where: { id: entryId }, data: record });
}

/** The person's ledger, newest first (see ../paging.ts). */
export async function findLedgerPage(
  db: Database,
  recipientId: string,
  window: PageWindow,
): Promise<ConsentEntryRow[]> {
  const q = pageArgs(window, "id");
  return prismaOf(db).consentEntry.findMany({
    where: { ...q.where, recipient_id: recipientId },
    orderBy: q.orderBy,
    take: q.take,
  });
}

/** The person's newest entry from a text keyword (STOP, START), or null. */
export async function findLastSmsKeywordEntry(
  db: Database,
  recipientId: string,
): Promise<ConsentEntryRow | null> {
  return prismaOf(db).consentEntry.findFirst({
    where: { recipient_id: recipientId, source: "sms_keyword" },
    orderBy: [{ created_at: "desc" }, { id: "desc" }],
  });
}

/** The person's current opt-in to a category: the ledger entry that recorded it and its expiry. */
export async function saveConsent(
  tx: Transaction,
  consent: {
    recipient_id: string;
    category: string;
    entry_id: string;
    expires_at: Date | null;
    recorded_at: Date;
  },
): Promise<void> {
  const { recipient_id, category, ...current } = consent;
  await transactionOf(tx).consent.upsert({
    where: { recipient_id_category: { recipient_id, category } },
    create: consent,
    update: current,
  });
}
