import { jobIdFor, type JobName, type JobPayload } from "./catalog";
import { bulkItem, type Queues } from "./producers";

// A row can be committed in Postgres while its job never reached Redis (crash between commit and
// enqueue, Redis down). Sweeps list such rows and enqueue them again under the catalog's stable
// job id, so a job that still exists swallows the repeat and a lost one is recreated.

export interface RequeueStuckOptions<N extends JobName> {
  queues: Pick<Queues, "enqueueBulk">;
  job: N;
  /** Payloads of rows that look stuck, oldest first, at most `limit` of them. */
  list: (limit: number) => Promise<JobPayload<N>[]>;
  /** Rows per run; the next run picks up the rest. */
  limit?: number;
  /** A job id of the job's own instead of the catalog's (a job with several ids per row). */
  jobId?: (payload: JobPayload<N>) => string;
  /** Enqueue at the head of the queue (rows that already waited their turn once). */
  lifo?: boolean;
}

export interface RequeueStuckResult {
  found: number;
  jobIds: string[];
}

export async function requeueStuck<N extends JobName>(
  options: RequeueStuckOptions<N>,
): Promise<RequeueStuckResult> {
  const payloads = await options.list(options.limit ?? 500);
  if (payloads.length === 0) return { found: 0, jobIds: [] };
  const jobIdOf = options.jobId ?? ((payload: JobPayload<N>) => jobIdFor(options.job, payload));
  // Same payload twice in one listing would be one job anyway; dedupe before the round trip.
  const unique = new Map(payloads.map((payload) => [jobIdOf(payload), payload]));
  const jobIds = await options.queues.enqueueBulk(
    [...unique].map(([jobId, payload]) =>
      bulkItem(options.job, payload, { jobId, ...(options.lifo ? { lifo: true } : {}) }),
    ),
  );
  return { found: unique.size, jobIds };
}
