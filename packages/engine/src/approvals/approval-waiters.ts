import { AppError } from "@svc/core";
import type { NoticeBus } from "@svc/queue";

// Reads held open until something changes (docs/approvals.md "Waiting for the decision"): a waiter
// listens on a notice channel (`approvals:<id>`, published by the outbox relay once the change has
// committed) and re-reads Postgres on every notice, when the subscriber may have missed notices
// (resync), and when its time is up. The notice is a hint; the answer is always the row as read.
// Waiters are bounded per process and per API key (429), and stop when their client goes away.
// Without Redis (no subscription within a second, or it fails) a waiter re-reads every second.

interface WaitOptions<T> {
  /** Notice channel name, without the Redis prefix. */
  channel: string;
  /** Whose wait it is (the API key's id): at most `maxPerKey` at once. */
  key: string;
  /** When to give up and answer with the last read. */
  until: Date;
  /** The client went away: stop at once (resolves null). */
  signal?: AbortSignal;
  read: () => Promise<T>;
  done: (value: T) => boolean;
}

export interface ApprovalWaiters {
  /** The first read `done` accepts, or the read at `until`; null when `signal` aborted the wait. */
  wait<T>(options: WaitOptions<T>): Promise<T | null>;
  /** Waits held open right now (all keys). */
  readonly active: number;
}

export interface ApprovalWaitersOptions {
  notices: Pick<NoticeBus, "channel" | "subscribe" | "onResync">;
  /** approvals.max_waiters */
  maxWaiters: number;
  /** approvals.max_waiters_per_key */
  maxPerKey: number;
  /** The injected clock `until` is measured on. */
  now: () => Date;
  /** Re-reads while the subscription is not possible (default 1000 ms). */
  fallbackPollMs?: number;
}

function tooMany(detail: string): AppError {
  return new AppError("rate_limited", detail, { headers: { "Retry-After": "1" } });
}

export function createApprovalWaiters(options: ApprovalWaitersOptions): ApprovalWaiters {
  let active = 0;
  const perKey = new Map<string, number>();
  const pollMs = options.fallbackPollMs ?? 1_000;

  function take(key: string): void {
    if (active >= options.maxWaiters)
      throw tooMany(
        `this API process already holds ${options.maxWaiters} waiting reads (approvals.max_waiters); retry in a second or read without wait`,
      );
    const held = perKey.get(key) ?? 0;
    if (held >= options.maxPerKey)
      throw tooMany(
        `this API key already holds ${options.maxPerKey} waiting reads (approvals.max_waiters_per_key); retry in a second or read without wait`,
      );
    active += 1;
    perKey.set(key, held + 1);
  }

  function give(key: string): void {
    active -= 1;
    const held = (perKey.get(key) ?? 1) - 1;
    if (held === 0) perKey.delete(key);
    else perKey.set(key, held);
  }

  return {
    get active() {
      return active;
    },
    async wait<T>(o: WaitOptions<T>): Promise<T | null> {
      if (o.signal?.aborted) return null;
      take(o.key);
      try {
        return await waitOne(o);
      } finally {
        give(o.key);
      }
    },
  };

  function waitOne<T>(o: WaitOptions<T>): Promise<T | null> {
    return new Promise<T | null>((resolve, reject) => {
      let settled = false;
      let reading = false;
      let again = false;
      let timeUp = false;
      let unsubscribe: (() => Promise<void>) | null = null;
      let poll: NodeJS.Timeout | undefined;
      const startPolling = () => {
        if (!settled && poll === undefined) poll = setInterval(check, pollMs);
      };

      const cleanup = () => {
        clearTimeout(timer);
        clearTimeout(fallback);
        clearInterval(poll);
        offResync();
        o.signal?.removeEventListener("abort", onAbort);
        void unsubscribe?.().catch(() => undefined);
      };
      const finish = (value: T | null) => {
        if (settled) return;
        settled = true;
        cleanup();
        resolve(value);
      };
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        cleanup();
        reject(error instanceof Error ? error : new Error(String(error)));
      };
      // One read at a time; what arrives during a read asks for one more after it.
      const check = () => {
        if (settled) return;
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        void (async () => {
          try {
            do {
              again = false;
              const value = await o.read();
              if (settled) return;
              if (timeUp || o.done(value)) return finish(value);
            } while (again);
          } catch (error) {
            fail(error);
          } finally {
            reading = false;
          }
        })();
      };
      const onAbort = () => finish(null);

      const timer = setTimeout(
        () => {
          timeUp = true;
          check();
        },
        Math.max(0, o.until.getTime() - options.now().getTime()),
      );
      const offResync = options.notices.onResync(check);
      o.signal?.addEventListener("abort", onAbort, { once: true });
      // Redis slow or away: the subscription waits for it, the reads do not.
      const fallback = setTimeout(startPolling, pollMs);
      options.notices
        .subscribe(options.notices.channel(o.channel), check)
        .then((stop) => {
          if (settled) return void stop().catch(() => undefined);
          unsubscribe = stop;
          clearTimeout(fallback);
          clearInterval(poll);
          poll = undefined;
          // Read once listening: a change made before the subscription is seen here.
          check();
        })
        .catch(() => {
          startPolling();
          check();
        });
    });
  }
}
