import type { RedisOptions as BullRedisOptions, ConnectionOptions } from "bullmq";
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from "ioredis";

// Every Redis connection svc opens is made here, for one of three topologies (docs/scaling.md
// "Redis: one server, Sentinel or Cluster"): one server, a primary watched by Sentinel, or a
// Redis Cluster. Two kinds of connection (BullMQ "going to production"): producers fail fast so
// an HTTP request answers 503 instead of hanging; workers wait out a Redis restart or failover
// (`maxRetriesPerRequest: null`, which BullMQ requires for their blocking commands).

export const DEFAULT_PREFIX = "svc";
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** Where Redis is: the `redis` section of the configuration, reduced to what connecting needs. */
export type RedisTopology =
  | { mode: "single"; url: string }
  | { mode: "cluster"; nodes: readonly string[] }
  /** `url` carries the primary's credentials, database number and TLS (its host is not used). */
  | { mode: "sentinel"; name: string; nodes: readonly string[]; url: string };

/** A connection of any topology; both kinds answer the same commands. */
export type RedisClient = Redis | Cluster;

export interface RedisTarget {
  /** Where Redis is; wins over `redisUrl`. */
  redis?: RedisTopology;
  /** `redis://…` of one server (the default topology). */
  redisUrl?: string;
  /** ioredis options merged over the defaults of the connection kind (one server or Sentinel only). */
  connection?: RedisOptions;
}

/** The `redis` section of the configuration as a topology. */
export function redisTopologyOf(redis: {
  url: string;
  cluster?: { nodes: readonly string[] } | null;
  sentinel?: { name: string; nodes: readonly string[] } | null;
}): RedisTopology {
  if (redis.cluster) return { mode: "cluster", nodes: redis.cluster.nodes };
  if (redis.sentinel)
    return { mode: "sentinel", name: redis.sentinel.name, nodes: redis.sentinel.nodes, url: redis.url };
  return { mode: "single", url: redis.url };
}

export function topologyOf(target: RedisTarget): RedisTopology {
  return target.redis ?? { mode: "single", url: target.redisUrl ?? DEFAULT_REDIS_URL };
}

// Reconnect quickly at first, never slower than every 5 s.
const retryStrategy = (times: number): number => Math.min(100 * 2 ** Math.min(times, 6), 5_000);

/** Host, port, credentials, database and TLS of a `redis://` or `rediss://` URL. */
export function redisUrlOptions(url: string): RedisOptions {
  const parsed = new URL(url);
  const options: RedisOptions = {
    host: parsed.hostname.replace(/^\[(.*)\]$/, "$1") || "127.0.0.1",
    port: parsed.port ? Number(parsed.port) : 6379,
  };
  if (parsed.username) options.username = decodeURIComponent(parsed.username);
  if (parsed.password) options.password = decodeURIComponent(parsed.password);
  const db = parsed.pathname.replace(/^\//, "");
  if (db) options.db = Number(db);
  if (parsed.protocol === "rediss:") options.tls = {};
  return options;
}

const nodeOf = (url: string) => {
  const { host, port } = redisUrlOptions(url);
  return { host: host!, port: port! };
};

/** Credentials and TLS shared by every node of a cluster, from the first seed that names them. */
function clusterNodeOptions(nodes: readonly string[]): RedisOptions {
  const options: RedisOptions = {};
  for (const url of nodes) {
    const { username, password, tls } = redisUrlOptions(url);
    if (username && !options.username) options.username = username;
    if (password && !options.password) options.password = password;
    if (tls) options.tls = tls;
  }
  return options;
}

function sentinelOptions(topology: Extract<RedisTopology, { mode: "sentinel" }>): RedisOptions {
  const primary = redisUrlOptions(topology.url);
  const first = redisUrlOptions(topology.nodes[0]!);
  const options: RedisOptions = {
    sentinels: topology.nodes.map(nodeOf),
    name: topology.name,
    // Hears `+switch-master` at once instead of waiting for the old primary's socket to fail.
    failoverDetector: true,
    sentinelRetryStrategy: retryStrategy,
  };
  if (primary.username) options.username = primary.username;
  if (primary.password) options.password = primary.password;
  if (primary.db !== undefined) options.db = primary.db;
  if (primary.tls) options.tls = primary.tls;
  if (first.password) options.sentinelPassword = first.password;
  if (first.username) options.sentinelUsername = first.username;
  return options;
}

/**
 * A client of `topology` with `options` (ioredis options of one connection; on a cluster they
 * become every node's options). A primary lost to a failover is found again: Sentinel is asked for
 * the new one, a cluster refreshes its slots on MOVED or a lost node.
 */
export function createRedisClient(topology: RedisTopology, options: RedisOptions = {}): RedisClient {
  if (topology.mode === "cluster") {
    const { enableOfflineQueue, ...nodeOptions } = options;
    const clusterOptions: ClusterOptions = {
      redisOptions: { ...clusterNodeOptions(topology.nodes), ...nodeOptions },
      clusterRetryStrategy: retryStrategy,
      // A failover takes the cluster down for a few seconds: retry then rather than fail at once.
      retryDelayOnClusterDown: 200,
      retryDelayOnFailover: 200,
      retryDelayOnTryAgain: 200,
      // Learn a promotion even while no command is refused with MOVED.
      slotsRefreshInterval: 2_000,
      slotsRefreshTimeout: 2_000,
      scaleReads: "master",
      enableOfflineQueue: enableOfflineQueue ?? true,
    };
    return new Cluster(topology.nodes.map(nodeOf), clusterOptions);
  }
  if (topology.mode === "sentinel") return new Redis({ ...sentinelOptions(topology), ...options });
  return new Redis({ ...redisUrlOptions(topology.url), ...options });
}

export function producerConnection(target: RedisTarget): RedisClient {
  const topology = topologyOf(target);
  return createRedisClient(topology, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    disconnectTimeout: 500, // close() of a never-connected client would otherwise linger 2 s
    retryStrategy,
    ...target.connection,
  });
}

/** One server's options, a Sentinel's options, or (cluster) a client that BullMQ duplicates. */
export interface WorkerConnection {
  connection: ConnectionOptions;
  /** Closes what BullMQ does not own (the cluster client); call after the worker closed. */
  close(): Promise<void>;
}

// Plain options where that works, so BullMQ owns (and closes) the worker's connections; a cluster
// must be handed over as a client, which BullMQ duplicates for its blocking connection.
export function workerConnection(target: RedisTarget): WorkerConnection {
  const topology = topologyOf(target);
  if (topology.mode === "cluster") {
    const cluster = createRedisClient(topology, { maxRetriesPerRequest: null, retryStrategy });
    cluster.on("error", () => undefined); // reconnects on its own; the worker reports failed jobs
    return {
      connection: cluster,
      close: async () => {
        await cluster.quit().catch(() => cluster.disconnect());
      },
    };
  }
  const base: RedisOptions =
    topology.mode === "sentinel" ? sentinelOptions(topology) : redisUrlOptions(topology.url);
  const options = { ...base, retryStrategy, ...target.connection, maxRetriesPerRequest: null };
  return {
    connection: options as BullRedisOptions,
    close: async () => undefined,
  };
}

export function resolvePrefix(prefix: string | undefined): string {
  const value = prefix ?? DEFAULT_PREFIX;
  if (value.length === 0) throw new Error("redis prefix must not be empty");
  return value;
}

/**
 * The BullMQ prefix of one queue: `<prefix>:{<queue>}`. The braces are a Redis Cluster hash tag:
 * every key of the queue hashes to one slot (BullMQ's scripts touch several at once), and each
 * queue hashes to its own, so queues spread over the primaries (docs/scaling.md "Where each key lives").
 */
export function queuePrefix(prefix: string | undefined, queue: string): string {
  return `${resolvePrefix(prefix)}:{${queue}}`;
}

/** Resolves once the client can take commands, or rejects after `timeoutMs`. */
export function waitForReady(client: RedisClient, timeoutMs: number): Promise<void> {
  if (client.status === "ready") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off("ready", onReady);
      reject(new Error(`no connection within ${timeoutMs} ms (status ${client.status})`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    client.once("ready", onReady);
  });
}
