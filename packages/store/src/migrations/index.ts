export { migrate, MIGRATION_LOCK_ID } from "./migrate";
export type { MigrateOptions, MigrateResult, MigrationLog } from "./migrate";
export { pendingMigrations } from "./pending-migrations";
export type { PendingMigrationsOptions } from "./pending-migrations";
export { MigrationError } from "./migration-error";
export type { MigrationErrorCode } from "./migration-error";
export { readMigrationFiles, migrationChecksum } from "./migration-files";
export { databaseNameOf, withDatabaseName, ensureDatabase, dropDatabase } from "./database-url";
