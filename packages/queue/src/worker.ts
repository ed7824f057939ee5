import { UnrecoverableError, Worker, type Job } from "bullmq";
import { withLogContext } from "@svc/log";
import { jobNamesOf, type JobName, type JobPayload, type QueueName } from "./catalog";
import { queuePrefix, workerConnection, type RedisTarget } from "./connection";
import { PermanentJobError, asJobError, type PermanentErrorTest } from "./errors";

export interface JobContext {
  id: string;
  name: JobName;
  queue: QueueName;
  /** Attempts that already ended before this one (0 on the first run). */
  attemptsMade: number;
  attempts: number;
}

export type JobHandler<N extends JobName> = (payload: JobPayload<N>, job: JobContext) => Promise<unknown>;
/** The registry apps fill: one handler per job name, so each queue's worker can dispatch. */
export type JobHandlers = { [N in JobName]?: JobHandler<N> };
export type QueueProcessor = (job: Job) => Promise<unknown>;

/** winston's Logger fits this shape; payloads are never passed to it. */
export interface JobLogger {
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
}

export const DEFAULT_LOCK_MS = 30_000;
// One stall is a crashed worker; a second one in a row is likelier the job itself (e.g. OOM).
export const DEFAULT_MAX_STALLED = 2;

export interface CreateWorkerOptions extends RedisTarget {
  queue: QueueName;
  processor: QueueProcessor;
  concurrency?: number;
  prefix?: string;
  /** How long a job stays claimed without a lock renewal; a killed worker's job waits this long. */
  lockDuration?: number;
  /** How often this worker looks for jobs whose lock ran out (default: the lock duration). */
  stalledInterval?: number;
  maxStalledCount?: number;
  /** Classifies handler errors (by class or status, never by text) as permanent. */
  isPermanent?: PermanentErrorTest;
  logger?: JobLogger;
}

/** Builds the processor of one queue from the registry: dispatch on the job's name. */
export function dispatchTo(queue: QueueName, handlers: JobHandlers): QueueProcessor {
  const missing = jobNamesOf(queue).filter((name) => handlers[name] === undefined);
  if (missing.length > 0) throw new Error(`queue ${queue}: no handler for ${missing.join(", ")}`);
  return async (job) => {
    const handler = handlers[job.name as JobName] as JobHandler<JobName> | undefined;
    if (handler === undefined) throw new PermanentJobError(`queue ${queue}: unknown job name ${job.name}`);
    return handler(job.data as JobPayload<JobName>, {
      id: job.id!,
      name: job.name as JobName,
      queue,
      attemptsMade: job.attemptsMade,
      attempts: job.opts.attempts ?? 1,
    });
  };
}

export function createWorker(options: CreateWorkerOptions): Worker {
  const redis = workerConnection(options);
  const lockDuration = options.lockDuration ?? DEFAULT_LOCK_MS;
  const isPermanent = options.isPermanent ?? (() => false);
  const { logger, queue } = options;
  const worker = new Worker(
    queue,
    // Every log line a handler writes carries the job's id (never its payload).
    (job: Job) =>
      withLogContext({ queue, job_id: job.id, job_name: job.name }, async () => {
        try {
          return await options.processor(job);
        } catch (err) {
          throw asJobError(err, isPermanent);
        }
      }),
    {
      connection: redis.connection,
      prefix: queuePrefix(options.prefix, queue),
      concurrency: options.concurrency ?? 1,
      lockDuration,
      stalledInterval: options.stalledInterval ?? lockDuration,
      maxStalledCount: options.maxStalledCount ?? DEFAULT_MAX_STALLED,
    },
  );
  worker.on("failed", (job, err) => {
    const attempts = job?.opts.attempts ?? 1;
    const final = err instanceof UnrecoverableError || (job?.attemptsMade ?? attempts) >= attempts;
    (final ? logger?.error : logger?.warn)?.call(
      logger,
      final ? "job failed for good" : "job failed, will retry",
      {
        queue,
        job_id: job?.id,
        job_name: job?.name,
        attempts_made: job?.attemptsMade,
        attempts,
        error_name: err.name,
        error: err.message,
      },
    );
  });
  worker.on("closed", () => void redis.close());
  worker.on("stalled", (jobId) => logger?.warn("job stalled, back to wait", { queue, job_id: jobId }));
  worker.on("error", (err) =>
    logger?.error("worker error", { queue, error_name: err.name, error: err.message }),
  );
  return worker;
}
