import type { RedisOptions as WorkerRedisOptions } from "bullmq";
import { Redis, type RedisOptions } from "ioredis";

// Two kinds of Redis connection (BullMQ "going to production"): producers fail fast so an HTTP
// request answers 503 instead of hanging; workers wait out a Redis restart (`maxRetriesPerRequest:
// null`, which BullMQ requires for their blocking commands).

export const DEFAULT_PREFIX = "svc";
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

export interface RedisTarget {
  /** `redis://…`; ignored when `connection` is given. */
  redisUrl?: string;
  /** ioredis options merged over the defaults of the connection kind. */
  connection?: RedisOptions;
}

// Reconnect quickly at first, never slower than every 5 s.
const retryStrategy = (times: number): number => Math.min(100 * 2 ** Math.min(times, 6), 5_000);

export function producerConnection(target: RedisTarget): Redis {
  const options: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    disconnectTimeout: 500, // close() of a never-connected client would otherwise linger 2 s
    retryStrategy,
    ...target.connection,
  };
  return new Redis(target.redisUrl ?? DEFAULT_REDIS_URL, options);
}

// Plain options rather than an instance: BullMQ then owns (and closes) the worker's connections.
export function workerConnectionOptions(target: RedisTarget): WorkerRedisOptions {
  return {
    retryStrategy,
    ...(target.connection as WorkerRedisOptions | undefined),
    url: target.redisUrl ?? DEFAULT_REDIS_URL,
    maxRetriesPerRequest: null,
  };
}

export function resolvePrefix(prefix: string | undefined): string {
  const value = prefix ?? DEFAULT_PREFIX;
  if (value.length === 0) throw new Error("redis prefix must not be empty");
  return value;
}
