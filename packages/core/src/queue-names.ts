// The work queues, named once for every package: the job catalog (packages/queue) routes jobs to
// them and the configuration (packages/config) sets each one's concurrency.
export const QUEUE_NAMES = [
  "ingest",
  "policy",
  "delivery",
  "digests",
  "screening",
  "callbacks",
  "webhooks",
  "broadcasts",
  "scheduler",
] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];
