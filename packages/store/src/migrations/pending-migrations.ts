import type { ClientBase } from "pg";
import { withClient } from "../one-shot-client";
import { readMigrationFiles } from "./migration-files";
import { readMigrationRows } from "./migrations-table";

export interface PendingMigrationsOptions {
  migrationsDir: string;
  /** Either a URL (a short-lived connection is opened) or an open client/pool to reuse. */
  databaseUrl?: string;
  db?: Pick<ClientBase, "query">;
}

/** Names of migrations in the folder not yet applied (for /readyz); a failed or rolled back one counts as pending. */
export async function pendingMigrations(options: PendingMigrationsOptions): Promise<string[]> {
  const files = await readMigrationFiles(options.migrationsDir);
  const rows = options.db ? await readMigrationRows(options.db) : await readRowsByUrl(options.databaseUrl);
  const applied = new Set(
    rows
      .filter((row) => row.finished_at !== null && row.rolled_back_at === null)
      .map((row) => row.migration_name),
  );
  return files.filter((file) => !applied.has(file.name)).map((file) => file.name);
}

async function readRowsByUrl(databaseUrl: string | undefined) {
  if (!databaseUrl) throw new Error("pendingMigrations needs databaseUrl or db");
  return withClient(databaseUrl, (client) => readMigrationRows(client));
}
