// Jest's global setup and teardown for the fleet switch (fleet.ts): starts the fleet's servers
// once for the whole run when SVC_TEST_FLEET is set, and does nothing otherwise. Imports are
// relative: jest loads this file without the suite's module mapping.
import { FLEET_CLUSTER_VARIABLE, FLEET_PGBOUNCER_VARIABLE, fleetRequested } from "./fleet";
import { startPgBouncer, type OwnPgBouncer } from "../servers/pgbouncer";
import { startRedisCluster, type OwnRedisCluster } from "../servers/redis-cluster";

interface Started {
  cluster: OwnRedisCluster;
  pgbouncer: OwnPgBouncer;
}
const KEY = Symbol.for("svc.testkit.fleet");

export default async function globalSetup(): Promise<void> {
  if (!fleetRequested()) return;
  const cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1 });
  const pgbouncer = await startPgBouncer({
    serverUrl: process.env.TEST_DATABASE_URL,
    poolMode: "transaction",
  });
  process.env[FLEET_CLUSTER_VARIABLE] = cluster.nodes.join(",");
  process.env[FLEET_PGBOUNCER_VARIABLE] = String(pgbouncer.port);
  (globalThis as Record<symbol, Started>)[KEY] = { cluster, pgbouncer };
  process.stderr.write(
    `fleet: Redis Cluster ${cluster.nodes.join(",")}, PgBouncer (transaction mode) on ${pgbouncer.port}\n`,
  );
}

export async function teardown(): Promise<void> {
  const started = (globalThis as Record<symbol, Started | undefined>)[KEY];
  if (!started) return;
  await started.pgbouncer.stop();
  await started.cluster.stop();
}
