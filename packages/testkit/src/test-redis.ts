import { randomBytes } from "node:crypto";
import Redis from "ioredis";
import { safeName, TEST_REDIS_URL } from "./services";

export interface TestRedisPrefix {
  /** `svc_test_<prefix>_<random>`: use as BullMQ `prefix` or ioredis `keyPrefix` (add your own separator). */
  prefix: string;
  redisUrl: string;
  /** Deletes every key starting with the prefix; returns how many. */
  cleanup(): Promise<number>;
}

/** A Redis key prefix no other test file shares. */
export function testRedisPrefix(prefix: string, options: { redisUrl?: string } = {}): TestRedisPrefix {
  const unique = `svc_test_${safeName(prefix, 40)}_${randomBytes(5).toString("hex")}`;
  const redisUrl = options.redisUrl ?? TEST_REDIS_URL;
  return { prefix: unique, redisUrl, cleanup: () => deleteKeysStartingWith(redisUrl, unique) };
}

/** Deletes every key starting with `prefix` (a literal prefix: no glob characters). */
export async function deleteKeysStartingWith(redisUrl: string, prefix: string): Promise<number> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let deleted = 0;
    // safeName leaves no glob characters, so the prefix matches literally.
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 }) as AsyncIterable<
      string[]
    >) {
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    }
    return deleted;
  } finally {
    redis.disconnect();
  }
}
