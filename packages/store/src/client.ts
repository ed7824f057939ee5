import { PrismaPg } from "@prisma/adapter-pg";
import { Client, Pool } from "pg";
import { wrapConnectionFailure } from "./database-errors";
import { prismaOf, rootOf, type Database, type RootDatabase } from "./transaction";
import { PrismaClient } from "./generated/prisma/client";

/**
 * `session`: the URL reaches Postgres itself or a session-mode pooler. `transaction`: a
 * transaction-mode pooler (PgBouncer) may hand each transaction another server connection, so
 * nothing may outlive one: no named prepared statements (docs/scaling.md "Behind PgBouncer").
 */
export type PoolMode = "session" | "transaction";

export interface CreatePrismaOptions {
  databaseUrl: string;
  /** Most connections this client's pool opens (pg's default is 10). */
  poolMax?: number;
  /** config `database.pool_mode` (default `session`). */
  poolMode?: PoolMode;
}

/**
 * pg's client, whose failures without an answer from Postgres (a connection ended mid-query, a
 * connect that timed out: plain errors with no code) leave it as DatabaseUnavailableError. Prisma's
 * driver adapter passes errors it does not know through unchanged, so without this a pooler or
 * Postgres going away mid-request surfaced as an unclassified error, a 500, instead of a 503
 * (docs/operations.md "Recovery guarantees").
 */
class ClassifyingClient extends Client {
  override query(...args: unknown[]): never {
    return classified((super.query as unknown as (...a: unknown[]) => unknown).bind(this), args);
  }

  override connect(...args: unknown[]): never {
    return classified((super.connect as unknown as (...a: unknown[]) => unknown).bind(this), args);
  }
}

/** pg's pool, its statements' failures classified as ClassifyingClient's (pg-pool reports a
 * connection lost mid-statement from the client's 'error' event, past the client's own query). */
class ClassifyingPool extends Pool {
  override query(...args: unknown[]): never {
    return classified((super.query as unknown as (...a: unknown[]) => unknown).bind(this), args);
  }

  override connect(...args: unknown[]): never {
    return classified((super.connect as unknown as (...a: unknown[]) => unknown).bind(this), args);
  }
}

/** Calls pg's `call` (callback or promise form) with its failures passed through wrapConnectionFailure. */
function classified(call: (...a: unknown[]) => unknown, args: unknown[]): never {
  const last = args.length - 1;
  if (last >= 0 && typeof args[last] === "function") {
    const callback = args[last] as (error: unknown, ...rest: unknown[]) => void;
    args[last] = (error: unknown, ...rest: unknown[]) =>
      callback(error ? wrapConnectionFailure(error) : error, ...rest);
  }
  const result = call(...args);
  if (result instanceof Promise)
    return result.catch((error: unknown) => Promise.reject(wrapConnectionFailure(error))) as never;
  return result as never;
}

// The client's `pg` pool, for the few hot-path statements that skip Prisma (see `pgPoolOf`).
const pools = new WeakMap<PrismaClient, { pool: Pool; poolMode: PoolMode }>();

/**
 * A PrismaClient over `pg` through the driver adapter: no native engine involved. The pool is
 * created here and handed to the adapter, which ends it on `$disconnect`.
 */
export function createPrisma(options: CreatePrismaOptions): PrismaClient {
  const pool = new ClassifyingPool({
    connectionString: options.databaseUrl,
    max: options.poolMax,
    Client: ClassifyingClient,
  });
  // An idle connection that Postgres ends (restart, failover, idle timeout) makes the pool emit
  // 'error' after dropping it; with no listener that would crash the process. The adapter adds
  // its own only once Prisma first connects, and `pgPoolOf` users may come first.
  pool.on("error", () => undefined);
  const client = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(client, { pool, poolMode: options.poolMode ?? "session" });
  return client;
}

/**
 * The `pg` pool behind a client made by `createPrisma`, shared with Prisma (same connections, same
 * limit). A raw statement through Prisma costs about 2-3x the CPU of the same statement sent by
 * `pg` as a named prepared statement (measured in docs/benchmarks.md), which matters on the accept
 * path's group commit and nowhere else.
 */
export function pgPoolOf(client: PrismaClient): Pool {
  return poolOf(client).pool;
}

/** The pool and its mode behind a client made by `createPrisma`, if it was. */
export function poolEntryOf(db: RootDatabase): { pool: Pool; poolMode: PoolMode } | undefined {
  return pools.get(rootOf(db));
}

function poolOf(client: PrismaClient): { pool: Pool; poolMode: PoolMode } {
  const entry = pools.get(client);
  if (!entry) throw new Error("pgPoolOf: this PrismaClient was not made by createPrisma");
  return entry;
}

/** Closes the client's connections: a process's last step with the database. */
export function closeDatabase(db: RootDatabase): Promise<void> {
  return rootOf(db).$disconnect();
}

/** Resolves once the database answers a trivial query (readiness probes, svcctl's first use). */
export async function pingDatabase(client: Database): Promise<void> {
  await prismaOf(client).$queryRaw`SELECT 1`;
}
