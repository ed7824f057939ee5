export { migrate, MIGRATION_LOCK_ID } from "./migrate";
export type { MigrateOptions, MigrateResult, MigrationLog } from "./migrate";
export { pendingMigrations } from "./pending-migrations";
export type { PendingMigrationsOptions } from "./pending-migrations";
export { MigrationError } from "./migration-error";
export type { MigrationErrorCode } from "./migration-error";
export { readMigrationFiles, migrationChecksum } from "./migration-files";
export type { MigrationFile } from "./migration-files";
export { planMigrations } from "./plan-migrations";
export {
  databaseNameOf,
  withDatabaseName,
  ensureDatabase,
  dropDatabase,
  quoteIdentifier,
} from "./database-url";
