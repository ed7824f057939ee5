import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { Client } from "pg";
import { fleetServices, pooledUrl, reserveTestDatabase, waitFor } from "@svc/testkit";

// The README's first command (`npm start`) on an empty database: it builds, creates the database,
// applies migrations, starts the API with embedded workers, and /readyz answers 200. Under the fleet
// switch (docs/development.md) it is configured as a fleet is: Redis Cluster seeds in
// REDIS_CLUSTER_NODES, DATABASE_URL through PgBouncer in transaction mode, DATABASE_DIRECT_URL beside it.

const ROOT = path.resolve(__dirname, "..");
// `npm start` creates it; afterAll drops it.
const database = reserveTestDatabase("quickstart");
const { databaseUrl } = database;
const port = 20000 + Math.floor(Math.random() * 20000);
const fleet = fleetServices();
const connections = fleet
  ? {
      DATABASE_URL: pooledUrl(fleet, databaseUrl),
      DATABASE_DIRECT_URL: databaseUrl,
      SVC__DATABASE__POOL_MODE: "transaction",
      REDIS_CLUSTER_NODES: fleet.clusterNodes.join(","),
    }
  : { DATABASE_URL: databaseUrl };
let child: ChildProcess | undefined;
let output = "";

afterAll(async () => {
  if (child?.pid && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    process.kill(-child.pid, "SIGKILL");
    await exited;
  }
  await database.drop();
}, 60_000);

it("`npm start` on an empty database reaches /readyz 200 and shuts down cleanly on SIGTERM", async () => {
  child = spawn("npm", ["start", "--silent"], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...connections,
      PORT: String(port),
      SVC_SECRET_KEY: randomBytes(32).toString("base64"),
    },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: npm, the shell and node all get the signal, as under a service manager.
    detached: true,
  });
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));

  // Fail at once, with the process output, if the start command dies instead of serving.
  const died = new Promise<never>((_resolve, reject) =>
    child!.once("exit", (code) => reject(new Error(`npm start exited with ${code}:\n${output}`))),
  );
  const ready = await Promise.race([
    died,
    waitFor(
      async () => {
        const response = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
        return response?.status === 200 ? response.json() : null;
      },
      { timeoutMs: 150_000, intervalMs: 500, what: "/readyz 200" },
    ),
  ]);
  expect(ready).toEqual({
    status: "ready",
    checks: { postgres: "ok", redis: "ok", migrations: "ok" },
    redis: fleet
      ? {
          mode: "cluster",
          cluster: { state: "ok", primaries: 3, replicas: 3, slots_assigned: 16384, slots_ok: 16384 },
        }
      : { mode: "single" },
  });

  // The database was created and migrated by the start itself.
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ key: string }>("SELECT key FROM categories ORDER BY key");
  await client.end();
  expect(rows.map((r) => r.key)).toEqual(["marketing", "transactional"]);

  const unauthorized = await fetch(`http://127.0.0.1:${port}/v1/agents`);
  expect(unauthorized.status).toBe(401);
  expect(unauthorized.headers.get("www-authenticate")).toMatch(/^Bearer/);

  // SIGTERM to the group: the service closes the server and its workers, and the port is released.
  died.catch(() => undefined);
  // "close" fires once every process holding the output pipes (npm, sh, node) has exited.
  const closed = new Promise((resolve) => child!.once("close", resolve));
  process.kill(-child.pid!, "SIGTERM");
  await closed;
  await waitFor(
    async () =>
      (await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => false,
        () => true,
      )) || null,
    {
      timeoutMs: 15_000,
      what: "the port to close",
    },
  );
  expect(output).toContain('"message":"workers stopped"');
}, 180_000);
