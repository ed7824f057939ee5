import { setTimeout as sleep } from "node:timers/promises";
import { Prisma, type PrismaClient } from "./generated/prisma/client";

export type TransactionClient = Prisma.TransactionClient;
export type PrismaClientOrTransaction = PrismaClient | TransactionClient;

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
export function isTransactionClient(db: PrismaClientOrTransaction): boolean {
  return !("$connect" in db);
}

// A guard on the root type narrows both ways (a PrismaClient is structurally a TransactionClient too).
function isRootClient(db: PrismaClientOrTransaction): db is PrismaClient {
  return !isTransactionClient(db);
}

// Postgres asks the client to retry these: serialization_failure, deadlock_detected.
const RETRYABLE_SQLSTATES = new Set(["40001", "40P01"]);

/** Decided by codes only: Prisma's P2034, the driver adapter's error kind, or the SQLSTATE. */
export function isRetryableTransactionError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, meta } = error as {
    code?: unknown;
    meta?: { driverAdapterError?: { cause?: { kind?: string; originalCode?: string } } };
  };
  if (code === "P2034") return true;
  if (typeof code === "string" && RETRYABLE_SQLSTATES.has(code)) return true;
  const cause = meta?.driverAdapterError?.cause;
  return cause?.kind === "TransactionWriteConflict" || RETRYABLE_SQLSTATES.has(cause?.originalCode ?? "");
}

/**
 * Runs `fn` in a transaction. Given a transaction client it joins it (the outer caller owns commit and
 * retries); given a PrismaClient it opens one and reruns `fn` from the start after a serialization
 * failure or deadlock, so `fn` must have no effects outside the database.
 */
export async function $transaction<R>(
  db: PrismaClientOrTransaction,
  fn: (tx: TransactionClient) => Promise<R>,
  options: TransactionOptions = {},
): Promise<R> {
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
