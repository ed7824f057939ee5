import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { withClient } from "../one-shot-client";
import { pendingMigrations } from "../migrations";
import { startCuttingProxy, type CuttingProxy } from "./fixtures/cutting-proxy";

// The short-lived connections (readiness's migration check, migrations, drift, creating and
// dropping databases) meet a server that ends them mid-statement: the call fails, and the
// connection's `error` event, heard by withClient, never reaches the process as an unhandled one
// (which would end it: a /readyz probe during a Postgres restart must not crash the API).

const MIGRATIONS = path.join(__dirname, "..", "..", "prisma", "migrations");
let db: TestDatabase;
let proxy: CuttingProxy;

beforeAll(async () => {
  db = await createTestDatabase("store_one_shot_client");
  // The start-up passes; each connection is cut when its first statement arrives.
  proxy = await startCuttingProxy(db.databaseUrl, { cutAtFirstStatement: true });
});
afterAll(async () => {
  await proxy.close();
  await db.drop();
});

it("a connection cut mid-statement fails the call, and nothing unhandled follows", async () => {
  await expect(withClient(proxy.url, (client) => client.query("SELECT 1"))).rejects.toThrow(
    "Connection terminated unexpectedly",
  );
  await sleep(200); // the client's 'error' and 'end' events, which come after the rejection
});

it("readiness's migration check (a connection per call) fails the same way, the process unharmed", async () => {
  await expect(pendingMigrations({ migrationsDir: MIGRATIONS, databaseUrl: proxy.url })).rejects.toThrow(
    "Connection terminated unexpectedly",
  );
  await sleep(200);
  // The same check straight to the database answers.
  await expect(
    pendingMigrations({ migrationsDir: MIGRATIONS, databaseUrl: db.databaseUrl }),
  ).resolves.toEqual([]);
});
