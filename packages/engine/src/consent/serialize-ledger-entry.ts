import type { ConsentEntryRow } from "@svc/store";

/** A consent-ledger entry as the API shows it (docs/preferences.md, "Consent ledger"). */
export function serializeLedgerEntry(row: ConsentEntryRow) {
  return {
    id: row.id,
    source: row.source,
    changes: row.changes as Record<string, unknown>,
    provenance: row.provenance as Record<string, unknown>,
    categories: row.categories,
    disclosure: row.disclosure,
    disclosure_sha256: row.disclosure_sha256,
    disclosure_version: row.disclosure_version,
    expires_at: row.expires_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

export type LedgerEntryView = ReturnType<typeof serializeLedgerEntry>;
