import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { createApiKeyCache, type ApiKeyCache } from "@svc/engine";
import type { PrismaClient } from "@svc/store";

// Key changes reach every API process through Redis pub/sub: a revoke or agent change here clears
// this process's key cache at once and publishes; the others clear theirs on the notice. A
// subscriber that reconnects clears too (notices sent meanwhile are lost), and the cache's TTL
// covers writers that publish nothing (svcctl).

export const apiKeyNoticesChannel = (prefix: string) => `${prefix}:api-keys:changed`;

export interface ApiKeyCacheWithNoticesOptions {
  prisma: PrismaClient;
  /** The API's Redis connection; the subscriber is its duplicate and ends with it. */
  redis: Redis;
  prefix: string;
  ttlMs?: number;
}

export function apiKeyCacheWithNotices({
  prisma,
  redis,
  prefix,
  ttlMs,
}: ApiKeyCacheWithNoticesOptions): ApiKeyCache {
  const channel = apiKeyNoticesChannel(prefix);
  const self = randomUUID(); // our own notices are already applied
  const cache = createApiKeyCache({
    prisma,
    ttlMs,
    publish: () => void redis.publish(channel, self).catch(() => undefined), // TTL covers a lost notice
  });
  const subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
  subscriber.on("error", () => undefined); // reconnects on its own
  subscriber.on("ready", () => cache.clear());
  subscriber.on("message", (_channel: string, from: string) => {
    if (from !== self) cache.clear();
  });
  void subscriber.subscribe(channel).catch(() => undefined);
  redis.once("end", () => subscriber.disconnect());
  return cache;
}
