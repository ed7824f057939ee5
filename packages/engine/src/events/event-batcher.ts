import type { NewEvent } from "@svc/store";
import { groupCommit } from "../shared/group-commit";
import { commitEvents, type CommitEventsDeps, type CommitOutcome } from "./commit-events";

// Group commit (shared/group-commit.ts): events accepted while earlier batches are being written
// wait and go together in the next INSERT (and bulk enqueue). No timer: a lone request commits on
// the next turn of the event loop, and under load the batches grow to what arrived meanwhile.

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
  const add = groupCommit<Waiting>(
    async (batch) => {
      options.onBatch?.(batch.length);
      try {
        const outcomes = await commitEvents(
          deps,
          batch.map((w) => w.row),
        );
        batch.forEach((w, i) => w.resolve(outcomes[i]!));
      } catch (error) {
        batch.forEach((w) => w.resolve({ error }));
      }
    },
    { maxBatch: options.maxRows ?? 256, maxInFlight: options.maxInFlight ?? 2 },
  );
  return { commit: (row) => new Promise<CommitOutcome>((resolve) => add({ row, resolve })) };
}
