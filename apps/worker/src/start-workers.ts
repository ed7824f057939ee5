import {
  QUEUE_NAMES,
  createWorker,
  dispatchTo,
  redisTopologyOf,
  type JobHandlers,
  type JobLogger,
  type PermanentErrorTest,
  type QueueName,
} from "@svc/queue";
import type { Worker } from "bullmq";

/**
 * The slice of the configuration the workers read. `SvcConfig` from @svc/config fits it;
 * `worker.lock_ms` is not in that schema yet, so it is optional here (default 30000).
 */
export interface WorkerAppConfig {
  redis: Parameters<typeof redisTopologyOf>[0] & { prefix: string };
  worker: { concurrency: Record<QueueName, number>; lock_ms?: number };
}

export interface StartWorkersOptions {
  config: WorkerAppConfig;
  handlers: JobHandlers;
  /** Queue names this process runs; default all of them. */
  queues?: readonly string[];
  logger: JobLogger;
  isPermanent?: PermanentErrorTest;
  /** Overrides `worker.lock_ms` (tests use a short lock so stalled jobs recover in seconds). */
  lockDuration?: number;
  stalledInterval?: number;
}

export interface RunningWorkers {
  queues: QueueName[];
  /** Stops taking jobs, waits for the active ones to finish, then disconnects. */
  close(): Promise<void>;
}

export function parseQueueNames(names: readonly string[] | undefined): QueueName[] {
  if (names === undefined || names.length === 0) return [...QUEUE_NAMES];
  const unknown = names.filter((name) => !(QUEUE_NAMES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(`unknown queue ${unknown.join(", ")} (known: ${QUEUE_NAMES.join(", ")})`);
  }
  return [...new Set(names)] as QueueName[];
}

export function startWorkers(options: StartWorkersOptions): RunningWorkers {
  const { config, logger } = options;
  const queues = parseQueueNames(options.queues);
  // Build every processor first: a missing handler stops the start before any job is taken.
  const processors = queues.map((queue) => [queue, dispatchTo(queue, options.handlers)] as const);
  const workers: Worker[] = processors.map(([queue, processor]) =>
    createWorker({
      queue,
      processor,
      redis: redisTopologyOf(config.redis),
      prefix: config.redis.prefix,
      concurrency: config.worker.concurrency[queue],
      lockDuration: options.lockDuration ?? config.worker.lock_ms,
      stalledInterval: options.stalledInterval,
      isPermanent: options.isPermanent,
      logger,
    }),
  );
  logger.info("workers started", { queues });
  let closing: Promise<void> | undefined;
  return {
    queues,
    close() {
      closing ??= Promise.all(workers.map((worker) => worker.close())).then(() => {
        logger.info("workers stopped", { queues });
      });
      return closing;
    },
  };
}
