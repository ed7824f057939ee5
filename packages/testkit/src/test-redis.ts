import { randomBytes } from "node:crypto";
import Redis, { Cluster } from "ioredis";
import { fleetServices } from "./fleet/fleet";
import { safeName, TEST_REDIS_URL } from "./services";

export interface TestRedisPrefix {
  /** `svc_test_<prefix>_<random>`: use as BullMQ `prefix` or ioredis `keyPrefix` (add your own separator). */
  prefix: string;
  redisUrl: string;
  /** The Redis Cluster's seeds when the fleet switch is on (fleet/fleet.ts), else null. */
  clusterNodes: string[] | null;
  /** Deletes every key starting with the prefix (on every primary of a cluster); returns how many. */
  cleanup(): Promise<number>;
}

/** A Redis key prefix no other test file shares. */
export function testRedisPrefix(prefix: string, options: { redisUrl?: string } = {}): TestRedisPrefix {
  const unique = `svc_test_${safeName(prefix, 40)}_${randomBytes(5).toString("hex")}`;
  const redisUrl = options.redisUrl ?? TEST_REDIS_URL;
  const clusterNodes = options.redisUrl ? null : (fleetServices()?.clusterNodes ?? null);
  return {
    prefix: unique,
    redisUrl,
    clusterNodes,
    cleanup: async () =>
      (await deleteKeysStartingWith(redisUrl, unique)) +
      (clusterNodes ? await deleteClusterKeysStartingWith(clusterNodes, unique) : 0),
  };
}

/** Deletes every key starting with `prefix` (a literal prefix: no glob characters). */
export async function deleteKeysStartingWith(redisUrl: string, prefix: string): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    return await deleteOnNode(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

async function deleteClusterKeysStartingWith(nodes: string[], prefix: string): Promise<number> {
  const cluster = new Cluster(
    nodes.map((url) => ({ host: new URL(url).hostname, port: Number(new URL(url).port) })),
    { redisOptions: { maxRetriesPerRequest: 1 } },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      cluster.once("ready", resolve);
      cluster.once("error", reject);
    });
    const counts = await Promise.all(cluster.nodes("master").map((node) => deleteOnNode(node, prefix)));
    return counts.reduce((sum, n) => sum + n, 0);
  } finally {
    cluster.disconnect();
  }
}

// One node's keys; keys of one scan batch may hash to different slots, so each is unlinked alone.
async function deleteOnNode(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  // safeName leaves no glob characters, so the prefix matches literally.
  for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 }) as AsyncIterable<string[]>) {
    if (keys.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.unlink(key);
    const results = (await pipeline.exec()) ?? [];
    deleted += results.reduce((sum, [, n]) => sum + Number(n ?? 0), 0);
  }
  return deleted;
}
