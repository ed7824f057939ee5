import type { NewEvent } from "@svc/store";
import { commitEvents, type CommitEventsDeps, type CommitOutcome } from "./commit-events";

// Group commit: events accepted while earlier batches are being written wait and go together in
// the next INSERT (and bulk enqueue). No timer: a lone request commits on the next turn of the
// event loop, and under load the batches grow by themselves to what arrived meanwhile.

export interface EventBatcherOptions {
  /** Most rows in one INSERT (default 256). */
  maxRows?: number;
  /** Batches written at once (default 2): more overlap round trips, fewer make bigger batches. */
  maxInFlight?: number;
  /** Told the size of every batch as it is written (tests, statistics). */
  onBatch?: (rows: number) => void;
}

export interface EventBatcher {
  /** Resolves once the row is committed (or found taken, or refused) and its ingest job handed over. */
  commit(row: NewEvent): Promise<CommitOutcome>;
}

interface Waiting {
  row: NewEvent;
  resolve: (outcome: CommitOutcome) => void;
}

export function createEventBatcher(deps: CommitEventsDeps, options: EventBatcherOptions = {}): EventBatcher {
  const maxRows = options.maxRows ?? 256;
  const maxInFlight = options.maxInFlight ?? 2;
  let waiting: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  const schedule = () => {
    if (scheduled || waiting.length === 0 || inFlight >= maxInFlight) return;
    scheduled = true;
    setImmediate(flush); // after this turn's I/O callbacks, so every request that arrived joins
  };

  const flush = () => {
    scheduled = false;
    while (inFlight < maxInFlight && waiting.length > 0) {
      const batch = waiting.length <= maxRows ? waiting : waiting.slice(0, maxRows);
      waiting = batch === waiting ? [] : waiting.slice(maxRows);
      inFlight++;
      options.onBatch?.(batch.length);
      commitEvents(
        deps,
        batch.map((w) => w.row),
      )
        .then(
          (outcomes) => batch.forEach((w, i) => w.resolve(outcomes[i]!)),
          (error: unknown) => batch.forEach((w) => w.resolve({ error })),
        )
        .finally(() => {
          inFlight--;
          schedule();
        });
    }
  };

  return {
    commit(row) {
      return new Promise<CommitOutcome>((resolve) => {
        waiting.push({ row, resolve });
        schedule();
      });
    },
  };
}
