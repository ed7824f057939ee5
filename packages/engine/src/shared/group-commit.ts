// Group commit: items that arrive while earlier batches are being written wait and go together in
// the next batch, so batches grow with load by themselves. A batch starts no earlier than the next
// turn of the event loop (after this turn's I/O callbacks), so every request that arrived joins;
// `lingerMs` lets a batch that is not full wait a moment longer for company, but only while another
// batch is being written (busy): when nothing is in flight a lone item goes at once, so at low
// rates nothing waits for a batch to fill (docs/benchmarks.md "Delivery latency at equal load").

export interface GroupCommitOptions {
  /** Most items in one batch. */
  maxBatch: number;
  /** Batches run at once. */
  maxInFlight: number;
  /**
   * How long a batch that is not full waits for more items while another batch is in flight
   * (default 0: the next turn of the loop). When idle, batches never wait.
   */
  lingerMs?: number;
}

/**
 * Returns `add`, which queues an item for a coming batch of `run`. `run` settles each item of its
 * batch itself (items carry their own resolve functions) and must not reject.
 */
export function groupCommit<I>(run: (batch: I[]) => Promise<void>, options: GroupCommitOptions) {
  const { maxBatch, maxInFlight, lingerMs = 0 } = options;
  let waiting: I[] = [];
  let inFlight = 0;
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    while (inFlight < maxInFlight && waiting.length > 0) {
      const batch = waiting.length <= maxBatch ? waiting : waiting.slice(0, maxBatch);
      waiting = batch === waiting ? [] : waiting.slice(maxBatch);
      inFlight++;
      void run(batch).finally(() => {
        inFlight--;
        schedule();
      });
    }
  };
  const schedule = () => {
    if (scheduled || waiting.length === 0 || inFlight >= maxInFlight) return;
    scheduled = true;
    if (lingerMs === 0 || inFlight === 0 || waiting.length >= maxBatch) setImmediate(flush);
    else setTimeout(flush, lingerMs);
  };

  return (item: I): void => {
    waiting.push(item);
    schedule();
  };
}
