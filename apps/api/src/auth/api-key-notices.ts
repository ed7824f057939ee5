import { randomUUID } from "node:crypto";
import { createApiKeyCache, type ApiKeyCache } from "@svc/engine";
import type { NoticeBus } from "@svc/queue";
import type { RootDatabase } from "@svc/store";

// Key changes reach every API process through Redis pub/sub: a revoke or agent change here clears
// this process's key cache at once and publishes; the others clear theirs on the notice. A
// subscriber that reconnects clears too (notices sent meanwhile are lost), and the cache's TTL
// covers writers that publish nothing (svcctl).

const API_KEY_NOTICES = "api-keys:changed";

export interface ApiKeyCacheWithNoticesOptions {
  prisma: RootDatabase;
  notices: NoticeBus;
  ttlMs?: number;
}

export function apiKeyCacheWithNotices({
  prisma,
  notices,
  ttlMs,
}: ApiKeyCacheWithNoticesOptions): ApiKeyCache {
  const channel = notices.channel(API_KEY_NOTICES);
  const self = randomUUID(); // our own notices are already applied
  const cache = createApiKeyCache({
    prisma,
    ttlMs,
    publish: () => void notices.publish(channel, self).catch(() => undefined), // TTL covers a lost notice
  });
  notices.onResync(() => cache.clear());
  void notices
    .subscribe(channel, (from) => {
      if (from !== self) cache.clear();
    })
    .catch(() => undefined); // the TTL covers a subscription that never came
  return cache;
}
