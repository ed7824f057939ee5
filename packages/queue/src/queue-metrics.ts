import { metrics } from "@svc/log";
import { QUEUE_NAMES } from "./catalog";
import type { Queues } from "./producers";

// Queue sizes for Prometheus, read from Redis when scraped (docs/operations.md "Metrics").
// While Redis is unreachable the last values stay and the scrape still answers.

const STATES = ["waiting", "active", "delayed", "failed"] as const;

export async function refreshQueueMetrics(
  queues: Pick<Queues, "queue">,
  timeoutMs = 1_000,
): Promise<boolean> {
  const read = Promise.all(
    QUEUE_NAMES.map(async (name) => {
      const counts = await queues
        .queue(name)
        .getJobCounts("waiting", "prioritized", "active", "delayed", "failed");
      for (const state of STATES) {
        const value =
          state === "waiting" ? (counts.waiting ?? 0) + (counts.prioritized ?? 0) : (counts[state] ?? 0);
        metrics.queueJobs.set({ queue: name, state }, value);
      }
    }),
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([
      read.then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The scrape: queue sizes refreshed, then the counted metrics (this process's, or `counted` when
 * the API's supervisor sums those of several processes) and the queue sizes, as Prometheus text.
 */
export async function scrapeMetrics(
  queues: Pick<Queues, "queue">,
  counted: () => Promise<string> = metrics.metricsText,
): Promise<string> {
  const [text] = await Promise.all([counted(), refreshQueueMetrics(queues)]);
  const sizes = await metrics.queueRegistry.metrics();
  return `${text.endsWith("\n") ? text : `${text}\n`}${sizes}`;
}
