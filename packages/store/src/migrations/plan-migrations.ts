import { MigrationError } from "./migration-error";
import type { MigrationFile } from "./migration-files";
import type { MigrationRow } from "./migrations-table";

export interface MigrationPlan {
  pending: MigrationFile[];
  alreadyApplied: number;
  /** Applied in the database but absent from the folder (a newer release ran here): reported, not fatal. */
  unknownApplied: string[];
}

const isRolledBack = (row: MigrationRow) => row.rolled_back_at !== null;
const isFinished = (row: MigrationRow) => row.finished_at !== null && !isRolledBack(row);
const isFailed = (row: MigrationRow) => row.finished_at === null && !isRolledBack(row);

/** Decides what to apply, refusing (like Prisma) while a failure is recorded or an applied file changed. */
export function planMigrations(files: MigrationFile[], rows: MigrationRow[]): MigrationPlan {
  const failed = rows.find(isFailed);
  if (failed) {
    throw new MigrationError(
      "failed_migration",
      `Migration ${failed.migration_name} started at ${failed.started_at.toISOString()} failed and is recorded in ` +
        `_prisma_migrations. Repair the database, then mark it rolled back (set rolled_back_at) or applied ` +
        `(\`prisma migrate resolve\`) before migrating again.`,
    );
  }
  const finished = new Map(rows.filter(isFinished).map((row) => [row.migration_name, row]));
  const fileNames = new Set(files.map((file) => file.name));
  const changed = files.filter((file) => {
    const row = finished.get(file.name);
    return row !== undefined && row.checksum !== file.checksum;
  });
  if (changed.length > 0) {
    throw new MigrationError(
      "checksum_mismatch",
      `Applied migration(s) changed since they were applied: ${changed.map((file) => file.name).join(", ")}. ` +
        `Restore the original migration.sql and put the change in a new migration.`,
    );
  }
  const pending = files.filter((file) => !finished.has(file.name));
  return {
    pending,
    alreadyApplied: files.length - pending.length,
    unknownApplied: [...finished.keys()].filter((name) => !fileNames.has(name)),
  };
}
