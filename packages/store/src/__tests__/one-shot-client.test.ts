import path from "node:path";
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { withClient } from "../one-shot-client";
import { pendingMigrations } from "../migrations";

// The short-lived connections (readiness's migration check, migrations, drift, creating and
// dropping databases) meet a server that ends them mid-statement: the call fails, and the
// connection's `error` event, heard by withClient, never reaches the process as an unhandled one
// (which would end it: a /readyz probe during a Postgres restart must not crash the API).

const MIGRATIONS = path.join(__dirname, "..", "..", "prisma", "migrations");
let db: TestDatabase;
let proxy: Server;
let proxyUrl: string;
const sockets = new Set<Socket>();

beforeAll(async () => {
  db = await createTestDatabase("store_one_shot_client");
  const target = new URL(db.databaseUrl);
  // Forwards the connection's start-up, then cuts both sides when the first statement arrives.
  proxy = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    let chunks = 0;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
    }
    client.on("data", (chunk) => {
      if (++chunks === 1) upstream.write(chunk);
      else for (const socket of [client, upstream]) socket.destroy();
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const url = new URL(db.databaseUrl);
  url.host = `127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  proxyUrl = url.toString();
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await db.drop();
});

it("a connection cut mid-statement fails the call, and nothing unhandled follows", async () => {
  await expect(withClient(proxyUrl, (client) => client.query("SELECT 1"))).rejects.toThrow(
    "Connection terminated unexpectedly",
  );
  await sleep(200); // the client's 'error' and 'end' events, which come after the rejection
});

it("readiness's migration check (a connection per call) fails the same way, the process unharmed", async () => {
  await expect(pendingMigrations({ migrationsDir: MIGRATIONS, databaseUrl: proxyUrl })).rejects.toThrow(
    "Connection terminated unexpectedly",
  );
  await sleep(200);
  // The same check straight to the database answers.
  await expect(
    pendingMigrations({ migrationsDir: MIGRATIONS, databaseUrl: db.databaseUrl }),
  ).resolves.toEqual([]);
});
