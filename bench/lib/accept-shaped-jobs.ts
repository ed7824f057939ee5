import { ingestJobFor } from "@svc/engine";
import type { BulkItem } from "@svc/queue";

// The ingest jobs the accept path leaves for a stream of events: one job per group commit
// (`ingest-events`, or `ingest-event` for a lone event). Under the accept benchmark's 32 clients
// a commit batch held 13 events on average (bench:accept prints it), so benchmarks that
// insert events directly enqueue them in groups of that size.
export const ACCEPT_BATCH = Number(process.env.BENCH_ACCEPT_BATCH ?? 13);

export function acceptShapedJobs(eventIds: readonly string[], batch = ACCEPT_BATCH): BulkItem[] {
  const jobs: BulkItem[] = [];
  for (let i = 0; i < eventIds.length; i += batch) jobs.push(ingestJobFor(eventIds.slice(i, i + batch)));
  return jobs;
}
