// Prisma's generated client: PrismaClient, the Prisma namespace, model types and enums.
export * from "./generated/prisma/client";

export { createPrisma, closeDatabase, pgPoolOf, pingDatabase, type PoolMode } from "./client";
export type { CreatePrismaOptions } from "./client";
export {
  $transaction,
  readOnlyTransaction,
  isTransactionClient,
  isRetryableTransactionError,
} from "./transaction";
export { sqlTransaction, type SqlTransactionOptions } from "./sql-transaction";
// What code outside the store holds: opaque handles (transaction.ts). The Prisma client types stay
// exported for the store's own tests and for the processes that create and close the client.
export type { Database, RootDatabase, Transaction, TransactionOptions } from "./transaction";
export type { TransactionClient, PrismaClientOrTransaction } from "./transaction";
export {
  lockRecipient,
  lockRecipients,
  lockRecipientsInOrder,
  lockAgentHolds,
  lockPhoneNumbers,
  lockInbox,
  lockInboxes,
  advisoryXactLock,
  advisoryLockKey,
  advisoryLockKeySql,
  LockNamespace,
} from "./locks";
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
export { classifyDatabaseError, wrapConnectionFailure, DatabaseUnavailableError } from "./database-errors";
export type { ClassifiedDatabaseError, DatabaseErrorKind } from "./database-errors";
// Repositories: every statement of the service, per aggregate (README "Repositories").
export * from "./repositories/messages";
export * from "./repositories/events";
export * from "./repositories/recipients";
export * from "./repositories/config-resources";
export * from "./repositories/digests";
export * from "./repositories/broadcasts";
export * from "./repositories/api-keys";
export type { ErasedPerson } from "./repositories/erased-person";
export * from "./repositories/approvals";
export * from "./repositories/inbound";
export * from "./repositories/outbox";
export * from "./repositories/inbox";
export * from "./repositories/webhooks";
