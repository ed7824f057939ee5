import { groupCommit } from "../shared/group-commit";
import type { HandOffDeps } from "../shared/hand-off";
import { enqueueFollowUps } from "./follow-ups";
import { ingestEvents } from "./ingest-batch";
import { ingestEvent } from "./ingest-event";
import type { FollowUps, IngestDeps, IngestResult } from "./ingest-types";

// Group commit for `ingest-event` jobs: the jobs a worker runs at once hand their event ids here;
// up to `parallel` transactions run, and ids that arrive meanwhile wait and go together into the
// next one (at most `maxBatch`). One job alone runs at once, as before. Follow-ups of a batch are
// enqueued in one bulk add after its commit; a job resolves only after that.

export interface IngestBatcherOptions {
  maxBatch?: number;
  parallel?: number;
  /** How long a batch waits for more jobs while another is in flight (default 2 ms; idle: none). */
  lingerMs?: number;
}

export interface IngestBatcher {
  /** Ingests the event (with others) and enqueues its follow-ups; resolves with its result. */
  ingest(eventId: string): Promise<IngestResult>;
}

interface Waiting {
  eventId: string;
  resolve: (result: IngestResult) => void;
  reject: (error: unknown) => void;
}

export function createIngestBatcher(
  deps: IngestDeps & HandOffDeps,
  options: IngestBatcherOptions = {},
): IngestBatcher {
  const run = async (batch: Waiting[]) => {
    let results: Map<string, IngestResult>;
    try {
      results = await ingestEvents(
        deps,
        batch.map((w) => w.eventId),
      );
    } catch {
      // One event's failure must not fail the others: each runs alone and keeps its own error.
      await Promise.all(batch.map((w) => ingestAlone(deps, w)));
      return;
    }
    const followUps: FollowUps = { deliveries: [], digests: [], notices: [] };
    for (const result of results.values()) {
      if (result.status !== "processed") continue;
      followUps.deliveries.push(...result.followUps.deliveries);
      followUps.digests.push(...result.followUps.digests);
      followUps.notices.push(...result.followUps.notices);
    }
    try {
      await enqueueFollowUps(deps, followUps, deps.now());
    } catch (error) {
      // Committed but not announced: each job's retry re-announces (followUpsOfProcessed).
      for (const w of batch) {
        const result = results.get(w.eventId)!;
        if (result.status === "processed") w.reject(error);
        else w.resolve(result);
      }
      return;
    }
    for (const w of batch) w.resolve(results.get(w.eventId)!);
  };

  const add = groupCommit(run, {
    maxBatch: options.maxBatch ?? 64,
    maxInFlight: options.parallel ?? 2,
    // While a batch is being written, the jobs that start within a moment join the next one (a full
    // batch goes at once; an idle batcher does not wait).
    lingerMs: options.lingerMs ?? 2,
  });
  return {
    ingest: (eventId) => new Promise<IngestResult>((resolve, reject) => add({ eventId, resolve, reject })),
  };
}

async function ingestAlone(deps: IngestDeps & HandOffDeps, w: Waiting): Promise<void> {
  try {
    const result = await ingestEvent(deps, w.eventId);
    if (result.status === "processed") await enqueueFollowUps(deps, result.followUps, deps.now());
    w.resolve(result);
  } catch (error) {
    w.reject(error);
  }
}
