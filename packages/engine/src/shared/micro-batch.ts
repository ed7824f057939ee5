import { groupCommit } from "./group-commit";

// Coalesces concurrent calls into one round trip (the delivery worker runs ~50 jobs at once, each
// asking Postgres the same kind of question). Calls made while a flush is in flight wait for the
// next one, so batches grow with load and a lone call still goes out on the next turn of the loop.
// A runner must be all or nothing (one statement): a failed batch is retried item by item.

export type BatchRunner<I, O> = (items: I[]) => Promise<O[]>;

export interface MicroBatcher<I, O> {
  /** Resolves with this item's result, or rejects with the whole batch's error. */
  add(item: I): Promise<O>;
}

export function microBatcher<I, O>(run: BatchRunner<I, O>, maxBatch = 100): MicroBatcher<I, O> {
  type Pending = { item: I; resolve: (o: O) => void; reject: (e: unknown) => void };
  const add = groupCommit<Pending>(
    async (batch) => {
      try {
        const results = await run(batch.map((p) => p.item));
        batch.forEach((p, i) => p.resolve(results[i] as O));
      } catch (error) {
        if (batch.length === 1) batch[0]!.reject(error);
        // One bad item (a row deleted meanwhile) must not fail its neighbours: each goes alone.
        // Runners are single statements, so the failed batch changed nothing and may run again.
        else await Promise.all(batch.map((p) => run([p.item]).then((r) => p.resolve(r[0] as O), p.reject)));
      }
    },
    { maxBatch, maxInFlight: 1 },
  );
  return { add: (item) => new Promise<O>((resolve, reject) => add({ item, resolve, reject })) };
}
