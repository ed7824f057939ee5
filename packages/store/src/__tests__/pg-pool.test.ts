import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "pg";
import { PrismaClient as BarePrismaClient } from "../generated/prisma/client";
import { createPrisma, pgPoolOf } from "../client";
import { classifyDatabaseError } from "../database-errors";
import { dropDatabase, scratchDatabaseUrl } from "./scratch";
import { startCuttingProxy } from "./fixtures/cutting-proxy";
import { ensureDatabase } from "../migrations";

// The accept path sends its batch INSERT through the client's own pg pool (pgPoolOf): the pool
// must be the one Prisma uses, obey poolMax, and end with $disconnect.

const databaseUrl = scratchDatabaseUrl("pgpool");

beforeAll(() => ensureDatabase(databaseUrl));
afterAll(() => dropDatabase(databaseUrl));

it("Prisma and pgPoolOf share one pool, capped by poolMax, ended by $disconnect", async () => {
  const prisma = createPrisma({ databaseUrl, poolMax: 2 });
  const pool = pgPoolOf(prisma);
  expect(pool.options.max).toBe(2);

  // Prisma's query checks out a connection of this very pool.
  await prisma.$queryRaw`SELECT 1`;
  expect(pool.totalCount).toBe(1);

  // Direct statements and Prisma's together never open more than poolMax connections.
  const backends = await Promise.all([
    ...[1, 2, 3].map(() => pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid FROM pg_sleep(0.05)")),
    ...[1, 2, 3].map(
      () => prisma.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid FROM pg_sleep(0.05)`,
    ),
  ]);
  const pids = new Set(backends.map((r) => ("rows" in r ? r.rows[0]!.pid : r[0]!.pid)));
  expect(pids.size).toBeLessThanOrEqual(2);
  expect(pool.totalCount).toBe(2);

  await prisma.$disconnect();
  expect(pool.ended).toBe(true);
  expect(pool.totalCount).toBe(0);
});

it("pgPoolOf refuses a client createPrisma did not make", () => {
  const bare = Object.create(BarePrismaClient.prototype) as BarePrismaClient;
  expect(() => pgPoolOf(bare)).toThrow("pgPoolOf: this PrismaClient was not made by createPrisma");
});

it("an idle connection Postgres ends before Prisma's first query neither crashes nor sticks", async () => {
  const prisma = createPrisma({ databaseUrl, poolMax: 2 });
  const pool = pgPoolOf(prisma);
  try {
    const { rows } = await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const admin = new Pool({ connectionString: databaseUrl, max: 1 });
    await admin.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
    await admin.end();
    // The pool drops the ended connection and emits 'error'; with nobody listening that emit
    // would throw out of pg's socket handler and fail this test as an uncaught exception.
    while (pool.totalCount > 0) await sleep(5);
    const again = await pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    expect(again.rows[0]!.pid).not.toBe(rows[0]!.pid);
  } finally {
    await prisma.$disconnect();
  }
});

it("a connection that ends mid-statement, or cannot be made, is classified unavailable through Prisma too", async () => {
  // A TCP proxy to Postgres whose sockets this test cuts while a statement runs: pg raises an
  // error with no code, which Prisma's adapter passes through unchanged (docs/operations.md
  // "Recovery guarantees": a 503, never a 500).
  const proxy = await startCuttingProxy(databaseUrl);
  const prisma = createPrisma({ databaseUrl: proxy.url, poolMax: 1 });
  try {
    await prisma.$queryRaw`SELECT 1`;
    const running = prisma.$queryRaw`SELECT pg_sleep(5)`.then(
      () => null,
      (error: unknown) => error,
    );
    await sleep(200);
    proxy.cut();
    const cut = await running;
    expect(classifyDatabaseError(cut)).toMatchObject({ kind: "unavailable" });
    // Nothing listening any more: the next connect fails, and is classified the same.
    await proxy.close();
    const refused = await prisma.$queryRaw`SELECT 1`.then(
      () => null,
      (error: unknown) => error,
    );
    expect(classifyDatabaseError(refused)).toMatchObject({ kind: "unavailable" });
  } finally {
    await proxy.close();
    await prisma.$disconnect();
  }
});
