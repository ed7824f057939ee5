import { OUTBOX_KICK } from "./outbox";
import { relayOutboxOnce, type RelayDeps } from "./relay-outbox";

// The relay loop of one worker process (docs/outbox.md "The relay"): it drains the outbox whenever
// a writer kicks it and at least every `pollMs`, batch after batch while batches come back full.
// Several processes may run it: each batch is taken with SKIP LOCKED, so none is relayed twice.

export interface OutboxRelayOptions extends RelayDeps {
  notices: RelayDeps["notices"] & {
    subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  };
  logger: { warn(message: string, meta?: Record<string, unknown>): void };
  /** Entries per transaction (default 200). */
  batchSize?: number;
  /** Longest wait between passes without a kick (default 1000 ms). */
  pollMs?: number;
}

export interface OutboxRelay {
  /** Resolves once the current pass ended; no pass starts after. */
  close(): Promise<void>;
}

export function startOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const batchSize = options.batchSize ?? 200;
  const pollMs = options.pollMs ?? 1_000;
  let closed = false;
  let again = false;
  let running: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let lastError = 0;

  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (!closed) timer = setTimeout(wake, ms);
  };
  const pass = async () => {
    let delay = pollMs;
    try {
      do {
        again = false;
        while (!closed && (await relayOutboxOnce(options, batchSize)) === batchSize);
      } while (again && !closed);
    } catch (error) {
      // Postgres or Redis away: the entries stay, and the next pass (a second later) tries again.
      delay = Math.min(pollMs, 1_000);
      if (Date.now() - lastError > 10_000) {
        lastError = Date.now();
        options.logger.warn("outbox relay pass failed; retrying", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    } finally {
      running = null;
      schedule(delay);
    }
  };
  function wake() {
    if (closed) return;
    if (running) {
      again = true; // a kick during a pass: drain once more before sleeping
      return;
    }
    running = pass();
  }

  let unsubscribe: (() => Promise<void>) | null = null;
  void options.notices
    .subscribe(options.notices.channel(OUTBOX_KICK), () => wake())
    .then((stop) => {
      if (closed) void stop();
      else unsubscribe = stop;
    })
    .catch(() => undefined); // without kicks the relay still polls
  wake();

  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await unsubscribe?.();
      await running;
    },
  };
}
