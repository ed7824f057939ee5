import { QUEUE_NAMES, type QueueName } from "./catalog";
import type { Queues } from "./producers";

// A dead job sits in BullMQ's failed set: it used up its attempts, failed permanently or stalled
// too often, and nothing will run it again. `svcctl jobs retry-dead` moves them back to wait with
// a fresh set of attempts; handlers re-read their rows, so a retry of settled work is a no-op.

export interface RetryDeadJobsOptions {
  /** One queue; default every queue except `scheduler`, whose sweeps rerun on their own. */
  queue?: QueueName;
  /** Jobs fetched per round trip. */
  pageSize?: number;
}

export type RetryDeadJobsResult = Partial<Record<QueueName, number>>;

export async function retryDeadJobs(
  queues: Pick<Queues, "queue">,
  options: RetryDeadJobsOptions = {},
): Promise<RetryDeadJobsResult> {
  const names = options.queue ? [options.queue] : QUEUE_NAMES.filter((name) => name !== "scheduler");
  const pageSize = options.pageSize ?? 100;
  const result: RetryDeadJobsResult = {};
  for (const name of names) {
    const queue = queues.queue(name);
    let retried = 0;
    // A retried job leaves the failed set, so page from `skipped` (jobs a worker still holds).
    let skipped = 0;
    for (;;) {
      const page = await queue.getFailed(skipped, skipped + pageSize - 1);
      if (page.length === 0) break;
      for (const job of page) {
        if (!job) {
          skipped += 1; // id left in the set without its job hash
          continue;
        }
        try {
          await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
          retried += 1;
        } catch {
          skipped += 1; // removed or moved meanwhile; it is no longer dead
        }
      }
    }
    result[name] = retried;
  }
  return result;
}
