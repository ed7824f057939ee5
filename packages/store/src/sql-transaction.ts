import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { PoolClient } from "pg";
import { poolEntryOf, type PoolMode } from "./client";
import {
  $transaction,
  isRetryableTransactionError,
  PgTransaction,
  sqlOf,
  type RootDatabase,
  type Sql,
  type Transaction,
} from "./transaction";

// A transaction on a connection of the pool itself, without Prisma (docs/architecture.md "The
// store boundary"): a raw statement through Prisma's client costs about twice the CPU of the same
// statement sent by `pg` (docs/benchmarks.md), and a batch of direct sends runs six of them per
// batch. Only functions that take their statements through `sqlOf` run in it; one that reaches for
// Prisma throws PgTransactionMisuse at once, and the caller runs the work in a Prisma transaction.

export interface SqlTransactionOptions {
  /** Most time any one statement may take, waiting on a lock included (SET LOCAL statement_timeout). */
  statementTimeoutMs: number;
  /** Extra attempts after a serialization failure or deadlock (default 3). */
  maxRetries?: number;
}

/**
 * Runs `fn` in a transaction on one of the pool's connections: BEGIN, `fn`, COMMIT, or ROLLBACK
 * when `fn` throws; rerun from the start after a serialization failure or deadlock, as
 * `$transaction` is. A client that was not made by `createPrisma` (no pool of its own to use) runs
 * `fn` in `$transaction` instead.
 */
export async function sqlTransaction<R>(
  root: RootDatabase,
  fn: (tx: Transaction) => Promise<R>,
  options: SqlTransactionOptions,
): Promise<R> {
  const entry = poolEntryOf(root);
  if (!entry) return $transaction(root, fn, { maxRetries: options.maxRetries });
  const { maxRetries = 3 } = options;
  for (let attempt = 0; ; attempt++) {
    try {
      return await once(entry.pool.connect(), entry.poolMode, fn, options.statementTimeoutMs);
    } catch (error) {
      if (attempt >= maxRetries || !isRetryableTransactionError(error)) throw error;
      await sleep(Math.round((5 + Math.random() * 20) * 2 ** attempt));
    }
  }
}

async function once<R>(
  connecting: Promise<PoolClient>,
  poolMode: PoolMode,
  fn: (tx: Transaction) => Promise<R>,
  statementTimeoutMs: number,
): Promise<R> {
  const client = await connecting;
  // While checked out, a connection the server ends (restart, failover, pooler drop) emits 'error'
  // with none of the pool's listeners attached: unheard, that would crash the process. The failure
  // reaches the caller through the statement that meets the dead connection instead.
  client.on("error", ignoreError);
  const release = (error?: Error) => {
    // A connection whose transaction did not end cleanly goes out of the pool (released with the
    // error) and keeps the listener until it is closed.
    if (!error) client.off("error", ignoreError);
    client.release(error);
  };
  try {
    // One round trip (the simple protocol takes both); the timeout ends with the transaction.
    await client.query(`BEGIN; SET LOCAL statement_timeout = ${Math.max(1, Math.round(statementTimeoutMs))}`);
  } catch (error) {
    release(error as Error);
    throw error;
  }
  let result: R;
  try {
    result = await fn(new PgTransaction(sqlOn(client, poolMode)));
  } catch (error) {
    await client.query("ROLLBACK").then(
      () => release(),
      (failed: Error) => release(failed),
    );
    throw error;
  }
  try {
    await client.query("COMMIT");
  } catch (error) {
    release(error as Error);
    throw error;
  }
  release();
  return result;
}

function ignoreError(): void {}

// Statement names by text: parsed once per server connection in `session` mode; behind a
// transaction-mode pooler the next statement may reach a server connection that never saw the
// name, so statements there go unnamed (docs/scaling.md "Behind PgBouncer").
const names = new Map<string, string>();
const nameOf = (text: string) => {
  let name = names.get(text);
  if (!name) {
    name = `svc_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
    if (names.size < 1000) names.set(text, name);
  }
  return name;
};

/**
 * Raw statements on the pool itself, outside any transaction (each on whichever connection is
 * free), named as in sqlTransaction; through Prisma for a client not made by `createPrisma`.
 */
export function poolSqlOf(root: RootDatabase): Sql {
  const entry = poolEntryOf(root);
  return entry ? sqlOn(entry.pool, entry.poolMode) : sqlOf(root);
}

function sqlOn(client: Pick<PoolClient, "query">, poolMode: PoolMode): Sql {
  const config = (text: string, values: readonly unknown[]) =>
    poolMode === "session"
      ? { name: nameOf(text), text, values: [...values] }
      : { text, values: [...values] };
  return {
    async query<R>(text: string, values: readonly unknown[]) {
      return (await client.query(config(text, values))).rows as R[];
    },
    async execute(text: string, values: readonly unknown[]) {
      return (await client.query(config(text, values))).rowCount ?? 0;
    },
  };
}
