// Prisma's generated client: PrismaClient, the Prisma namespace, model types and enums.
export * from "./generated/prisma/client";

export { createPrisma, pgPoolOf } from "./client";
export type { CreatePrismaOptions } from "./client";
export { $transaction, isTransactionClient, isRetryableTransactionError } from "./transaction";
export type { TransactionClient, PrismaClientOrTransaction, TransactionOptions } from "./transaction";
export { lockRecipient, advisoryXactLock, advisoryLockKey, advisoryLockKeySql, LockNamespace } from "./locks";
export {
  migrate,
  pendingMigrations,
  MIGRATION_LOCK_ID,
  MigrationError,
  readMigrationFiles,
  migrationChecksum,
  ensureDatabase,
  dropDatabase,
  databaseNameOf,
  withDatabaseName,
} from "./migrations";
export type {
  MigrateOptions,
  MigrateResult,
  MigrationLog,
  MigrationErrorCode,
  PendingMigrationsOptions,
} from "./migrations";
// Dev/test/svcctl only; loads the wasm devDependency lazily, so the service never needs it.
export { checkDrift } from "./drift";
export type { CheckDriftOptions, DriftResult } from "./drift";
export * from "./rows";
export { pageArgs } from "./repositories/paging";
export type { PageWindow, PagePosition } from "./repositories/paging";
