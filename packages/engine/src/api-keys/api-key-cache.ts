import { findApiKeyForAuth, type ApiKeyAuthRecord, type RootDatabase } from "@svc/store";

// Key rows by SHA-256, so authentication is not a Postgres round trip per request. Decisions are
// still made per request from the row (revoked, expiry against `now`, agent state); the cache only
// saves the read. Writers in this process invalidate it at once (revoke, agent changes) and tell
// other processes through `publish`; `ttlMs` bounds staleness for writers that tell nobody (svcctl).

/** What authentication reads of a key and its agent. */
export type KeyRecord = ApiKeyAuthRecord;

export interface ApiKeyCacheOptions {
  prisma: RootDatabase;
  /** How long a row is trusted without a notice (default 1000 ms). */
  ttlMs?: number;
  /** More distinct keys than this and the cache starts over (default 10,000). */
  maxEntries?: number;
  /** Milliseconds on a clock that only moves forward (tests pass their own). */
  clock?: () => number;
  /** Tells the other processes that keys or agents changed (see `invalidate`). */
  publish?: () => void;
}

export interface ApiKeyCache {
  /** The key row with this hash (from memory when fresh), or null for an unknown key. */
  lookup(hash: string): Promise<KeyRecord | null>;
  /** Keys or agents changed here: forget every row now and tell the other processes. */
  invalidate(): void;
  /** Another process said keys or agents changed: forget every row. */
  clear(): void;
}

export function createApiKeyCache(options: ApiKeyCacheOptions): ApiKeyCache {
  const { prisma } = options;
  const ttlMs = options.ttlMs ?? 1000;
  const maxEntries = options.maxEntries ?? 10_000;
  const clock = options.clock ?? (() => performance.now());
  const rows = new Map<string, { record: KeyRecord; loadedAt: number }>();
  const loading = new Map<string, Promise<KeyRecord | null>>();
  // Bumped by every invalidation: a read that started before it must not be remembered after it.
  let generation = 0;

  const load = (hash: string): Promise<KeyRecord | null> => {
    const startedIn = generation;
    const loadedAt = clock();
    const read = findApiKeyForAuth(prisma, hash)
      .then((record) => {
        if (record && startedIn === generation) {
          if (rows.size >= maxEntries) rows.clear();
          rows.set(hash, { record, loadedAt });
        }
        return record;
      })
      .finally(() => {
        if (loading.get(hash) === read) loading.delete(hash);
      });
    loading.set(hash, read);
    return read;
  };

  const clear = () => {
    generation++;
    rows.clear();
    loading.clear();
  };

  return {
    async lookup(hash) {
      const hit = rows.get(hash);
      if (hit && clock() - hit.loadedAt < ttlMs) return hit.record;
      return loading.get(hash) ?? load(hash); // concurrent misses share one read
    },
    invalidate() {
      clear();
      options.publish?.();
    },
    clear,
  };
}
