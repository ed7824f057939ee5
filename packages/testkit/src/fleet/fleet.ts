// The fleet switch (docs/development.md "Tests on a fleet's servers"): with SVC_TEST_FLEET=1 the
// suite's global setup starts a Redis Cluster (3 primaries, 3 replicas) and PgBouncer in
// transaction mode on spare ports, and every HTTP-level test (the API harness, the end-to-end
// tests) configures svc exactly as a fleet is configured: `redis.cluster.nodes`, `database.url`
// through the pooler with `database.pool_mode: transaction`, `database.direct_url` beside it.

export const FLEET_SWITCH = "SVC_TEST_FLEET";
/** Set by the global setup: the cluster's seeds, comma-separated. */
export const FLEET_CLUSTER_VARIABLE = "TEST_REDIS_CLUSTER_NODES";
/** Set by the global setup: the pooler's port. */
export const FLEET_PGBOUNCER_VARIABLE = "TEST_PGBOUNCER_PORT";

export interface FleetServices {
  clusterNodes: string[];
  pgbouncerPort: number;
}

export function fleetRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[FLEET_SWITCH] === "1" || env[FLEET_SWITCH] === "true";
}

/** The fleet's servers when the switch is on (the global setup started them), else null. */
export function fleetServices(env: NodeJS.ProcessEnv = process.env): FleetServices | null {
  if (!fleetRequested(env)) return null;
  const nodes = env[FLEET_CLUSTER_VARIABLE];
  const port = env[FLEET_PGBOUNCER_VARIABLE];
  if (!nodes || !port)
    throw new Error(
      `${FLEET_SWITCH} is set but the fleet's servers are not: run the tests through jest (its global setup starts them)`,
    );
  return { clusterNodes: nodes.split(","), pgbouncerPort: Number(port) };
}

/** `databaseUrl` through the pooler (same database, user and options). */
export function pooledUrl(fleet: FleetServices, databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(fleet.pgbouncerPort);
  return url.toString();
}

/**
 * The `database` and `redis` sections a test's svc runs with: the fleet's when the switch is on,
 * else the shared servers' (`databaseUrl`, `redisUrl`).
 */
export function serviceConnections(
  databaseUrl: string,
  redis: { url: string; prefix: string },
  env: NodeJS.ProcessEnv = process.env,
): { database: Record<string, unknown>; redis: Record<string, unknown> } {
  const fleet = fleetServices(env);
  if (!fleet) return { database: { url: databaseUrl }, redis };
  return {
    database: { url: pooledUrl(fleet, databaseUrl), pool_mode: "transaction", direct_url: databaseUrl },
    redis: { ...redis, cluster: { nodes: fleet.clusterNodes } },
  };
}
