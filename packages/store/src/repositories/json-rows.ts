import type { AddressRow, ConsentRow, FatigueStateRow, RecipientRow } from "../rows";

// Rows as JSON in one-statement reads and writes: read back (ingest's snapshot, a batch of direct
// sends) to Prisma's row types, timestamp columns becoming Dates; and written (ingest's messages and
// outcomes, a composed group's messages) as one JSON parameter that Postgres types per column.

/**
 * `INSERT … SELECT … FROM json_populate_recordset(NULL::<table>, $<param>::json)`: the rows travel
 * as one parameter, so the statement is the same whatever they hold (no statement per row count for
 * Prisma to compile). Only the named columns are written; one the rows do not carry keeps its
 * default.
 */
export function insertFromJsonSql(table: string, columns: readonly string[], param: number): string {
  const list = columns.map((c) => `"${c}"`).join(", ");
  return `INSERT INTO ${table} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${table}, $${param}::json)`;
}

/** JSON row → row type: timestamp columns become Dates (null stays null). */
export function revive<T>(json: Record<string, unknown>, dates: readonly string[]): T {
  const row: Record<string, unknown> = { ...json };
  for (const key of dates) {
    const value = row[key];
    row[key] = typeof value === "string" ? new Date(value) : null;
  }
  return row as T;
}

export function reviveRecipient(
  recipient: Record<string, unknown>,
  addresses: Record<string, unknown>[],
  consents: Record<string, unknown>[],
): RecipientRow & { addresses: AddressRow[]; consents: ConsentRow[] } {
  return {
    ...revive<RecipientRow>(recipient, ["created_at", "updated_at"]),
    addresses: addresses.map((a) => revive<AddressRow>(a, ["created_at", "updated_at"])),
    consents: consents.map((c) => revive<ConsentRow>(c, ["expires_at", "recorded_at"])),
  };
}

export function reviveFatigue(row: Record<string, unknown>): FatigueStateRow {
  return revive<FatigueStateRow>(row, ["paused_until", "probe_sent_at", "updated_at"]);
}
