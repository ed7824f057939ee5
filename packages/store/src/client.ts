import { PrismaPg } from "@prisma/adapter-pg";
import { Pool } from "pg";
import { PrismaClient } from "./generated/prisma/client";

export interface CreatePrismaOptions {
  databaseUrl: string;
  /** Most connections this client's pool opens (pg's default is 10). */
  poolMax?: number;
}

// The client's `pg` pool, for the few hot-path statements that skip Prisma (see `pgPoolOf`).
const pools = new WeakMap<PrismaClient, Pool>();

/**
 * A PrismaClient over `pg` through the driver adapter: no native engine involved. The pool is
 * created here and handed to the adapter, which ends it on `$disconnect`.
 */
export function createPrisma(options: CreatePrismaOptions): PrismaClient {
  const pool = new Pool({ connectionString: options.databaseUrl, max: options.poolMax });
  // An idle connection that Postgres ends (restart, failover, idle timeout) makes the pool emit
  // 'error' after dropping it; with no listener that would crash the process. The adapter adds
  // its own only once Prisma first connects, and `pgPoolOf` users may come first.
  pool.on("error", () => undefined);
  const client = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(client, pool);
  return client;
}

/**
 * The `pg` pool behind a client made by `createPrisma`, shared with Prisma (same connections, same
 * limit). A raw statement through Prisma costs about 2-3x the CPU of the same statement sent by
 * `pg` as a named prepared statement (measured in docs/benchmarks.md), which matters on the accept
 * path's group commit and nowhere else.
 */
export function pgPoolOf(client: PrismaClient): Pool {
  const pool = pools.get(client);
  if (!pool) throw new Error("pgPoolOf: this PrismaClient was not made by createPrisma");
  return pool;
}

/** Resolves once the database answers a trivial query (readiness probes, svcctl's first use). */
export async function pingDatabase(client: PrismaClient): Promise<void> {
  await client.$queryRaw`SELECT 1`;
}
