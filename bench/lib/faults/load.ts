import { setTimeout as sleep } from "node:timers/promises";

// The clients of a fault run: post every event once, with its own idempotency key, retrying a
// refused or failed request (503 with Retry-After, a connection reset by a killed process) on
// the next API address with the same key, as a careful backend would.

export interface PostEventsResult {
  accepted: Set<number>;
  /** Answers ≥ 500: when each came and its status. */
  fiveXx: { at: number; status: number }[];
  /** Requests that got no answer (connection refused or reset). */
  networkErrors: number;
}

export async function postEvents(options: {
  urls: () => string[];
  key: string;
  count: number;
  concurrency: number;
  body: (n: number) => Record<string, unknown>;
  /** Stop retrying after this long (ms) per event. */
  giveUpAfterMs?: number;
  /** When (epoch ms) to stop posting altogether: events not accepted by then are left out. */
  stopAt?: number;
}): Promise<PostEventsResult> {
  const result: PostEventsResult = { accepted: new Set(), fiveXx: [], networkErrors: 0 };
  let next = 0;
  let turn = 0;
  const postOne = async (n: number) => {
    const started = Date.now();
    const body = JSON.stringify({ ...options.body(n), idempotency_key: `fault-event-${n}` });
    const stopAt = Math.min(started + (options.giveUpAfterMs ?? 120_000), options.stopAt ?? Infinity);
    while (Date.now() < stopAt) {
      const urls = options.urls();
      const url = urls[turn++ % urls.length]!;
      let wait = 200;
      try {
        const res = await fetch(`${url}/v1/events`, {
          method: "POST",
          headers: { authorization: `Bearer ${options.key}`, "content-type": "application/json" },
          body,
          signal: AbortSignal.timeout(15_000),
        });
        await res.arrayBuffer();
        if (res.status === 202 || res.status === 200) {
          result.accepted.add(n);
          return;
        }
        if (res.status >= 500) result.fiveXx.push({ at: Date.now(), status: res.status });
        else if (res.status !== 429) throw new Error(`event ${n}: unexpected ${res.status}`);
        wait = Number(res.headers.get("retry-after") ?? 0.2) * 1000;
      } catch (error) {
        if ((error as Error).message.startsWith(`event ${n}:`)) throw error;
        result.networkErrors += 1;
      }
      await sleep(Math.min(wait, 1_000));
    }
  };
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < options.count && Date.now() < (options.stopAt ?? Infinity)) await postOne(next++);
    }),
  );
  return result;
}
