import { setTimeout as sleep } from "node:timers/promises";
import { classifyDatabaseError } from "./database-errors";
import { Prisma, type PrismaClient } from "./generated/prisma/client";

export type TransactionClient = Prisma.TransactionClient;
export type PrismaClientOrTransaction = PrismaClient | TransactionClient;

// What code outside the store holds of the database (docs/architecture.md "The store boundary"):
// opaque handles with no members, which it can only hand back to the store's functions. Only the
// store turns one into the Prisma client behind it (prismaOf, rootOf, transactionOf, not exported
// from the package). The brands are optional, so a PrismaClient (what the apps create, what tests
// hold) is any of them; among the handles, a transaction or the root client is a Database, a
// Database is neither of the others, and a transaction is not a root client.
declare const handle: unique symbol;
/** The database as a whole or a transaction in progress: for a statement that runs in either. */
export type Database = object & { readonly [handle]?: "root" | "transaction" };
/** The client itself, outside any transaction: for work that opens transactions of its own. */
export type RootDatabase = object & { readonly [handle]?: "root" };
/** A transaction in progress: for statements that must run inside one (locks held until commit). */
export type Transaction = object & { readonly [handle]?: "transaction" };

/** The Prisma client behind a handle (the store's own code only). */
export function prismaOf(db: Database): PrismaClientOrTransaction {
  if (db instanceof PgTransaction) throw new PgTransactionMisuse();
  return db as PrismaClientOrTransaction;
}

/** The root Prisma client behind a handle (the store's own code only). */
export function rootOf(db: RootDatabase): PrismaClient {
  return db as PrismaClient;
}

/** The Prisma transaction client behind a handle (the store's own code only). */
export function transactionOf(tx: Transaction): TransactionClient {
  if (tx instanceof PgTransaction) throw new PgTransactionMisuse();
  return tx as TransactionClient;
}

/** Raw statements under a transaction, whichever kind it is (`sqlOf`). */
export interface Sql {
  /** The rows of a statement; `$1`… are `values`. */
  query<R>(text: string, values: readonly unknown[]): Promise<R[]>;
  /** A statement's count of rows changed. */
  execute(text: string, values: readonly unknown[]): Promise<number>;
}

/**
 * A transaction on a connection of the pool itself, without Prisma (sql-transaction.ts): the hot
 * path of direct sends. Only functions that reach it through `sqlOf` may run in it; anything that
 * reaches for Prisma's client fails at once (PgTransactionMisuse), never half-done.
 */
export class PgTransaction {
  constructor(readonly sql: Sql) {}
}

/** A Prisma call was attempted under a PgTransaction: the caller runs the work in a Prisma one instead. */
export class PgTransactionMisuse extends Error {
  constructor() {
    super("this statement needs a Prisma transaction; it ran under a pg transaction (sqlTransaction)");
    this.name = "PgTransactionMisuse";
  }
}

/** Raw statements under `db`: on the pool's connection for a PgTransaction, else through Prisma. */
export function sqlOf(db: Database): Sql {
  if (db instanceof PgTransaction) return db.sql;
  const prisma = db as PrismaClientOrTransaction;
  return {
    query: <R>(text: string, values: readonly unknown[]) => prisma.$queryRawUnsafe<R[]>(text, ...values),
    execute: (text, values) => prisma.$executeRawUnsafe(text, ...values),
  };
}

export interface TransactionOptions {
  isolationLevel?: Prisma.TransactionIsolationLevel;
  /** Most time to wait for a connection, in ms (Prisma's default 2000). */
  maxWait?: number;
  /** Most time the callback may run, in ms (Prisma's default 5000). */
  timeout?: number;
  /** Extra attempts after a serialization failure or deadlock (default 3). */
  maxRetries?: number;
  /** Told before each retry, e.g. to log it. */
  onRetry?: (attempt: number, error: unknown) => void;
}

/** Prisma strips `$connect` (with `$disconnect`, `$on`, `$extends`) from transaction clients; 7.x keeps `$transaction`. */
export function isTransactionClient(db: Database): boolean {
  return !("$connect" in db);
}

// A guard on the root type narrows both ways (a PrismaClient is structurally a TransactionClient too).
function isRootClient(db: PrismaClientOrTransaction): db is PrismaClient {
  return !isTransactionClient(db);
}

/** Serialization failure or deadlock, which Postgres asks the client to retry (database-errors.ts). */
export function isRetryableTransactionError(error: unknown): boolean {
  return classifyDatabaseError(error)?.kind === "retryable";
}

/**
 * Runs `fn` in a transaction. Given a transaction client it joins it (the outer caller owns commit and
 * retries); given a PrismaClient it opens one and reruns `fn` from the start after a serialization
 * failure or deadlock, so `fn` must have no effects outside the database.
 */
export async function $transaction<R>(
  handle: Database,
  fn: (tx: Transaction) => Promise<R>,
  options: TransactionOptions = {},
): Promise<R> {
  if (handle instanceof PgTransaction) return fn(handle);
  const db = prismaOf(handle);
  if (!isRootClient(db)) return fn(db);
  const { maxRetries = 3, onRetry, ...prismaOptions } = options;
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.$transaction(fn, prismaOptions);
    } catch (error) {
      if (attempt >= maxRetries || !isRetryableTransactionError(error)) throw error;
      onRetry?.(attempt + 1, error);
      // Jittered backoff so two colliding transactions do not collide again in lockstep.
      await sleep(Math.round((5 + Math.random() * 20) * 2 ** attempt));
    }
  }
}

/**
 * A transaction that can only read: `SET TRANSACTION READ ONLY` first, so Postgres itself refuses
 * any write inside it (a dry run that must not change anything). Retried as `$transaction` is. A
 * transaction of its own, never joined to a caller's (whose mode is set already).
 */
export function readOnlyTransaction<R>(
  db: RootDatabase,
  fn: (tx: Transaction) => Promise<R>,
  options: TransactionOptions = {},
): Promise<R> {
  return $transaction(
    db,
    async (tx) => {
      await transactionOf(tx).$executeRaw`SET TRANSACTION READ ONLY`;
      return fn(tx);
    },
    options,
  );
}
