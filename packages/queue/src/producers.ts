import { Queue, type JobsOptions } from "bullmq";
import {
  QUEUE_NAMES,
  assertJobId,
  defaultJobOptions,
  jobIdFor,
  queueOf,
  type JobName,
  type JobPayload,
  type QueueName,
} from "./catalog";
import {
  producerConnection,
  queuePrefix,
  resolvePrefix,
  waitForReady,
  type RedisClient,
  type RedisTarget,
} from "./connection";

export interface EnqueueOptions {
  /** Milliseconds to wait before the job becomes runnable. */
  delay?: number;
  /** Run no earlier than this instant (wins over `delay`); a past instant runs at once. */
  sendAt?: Date;
  /** Replaces the catalog's id; still must not contain ':'. */
  jobId?: string;
  priority?: number;
  /** Put the job at the head of the wait list (recovered work that already waited once). */
  lifo?: boolean;
}

/** One job of a bulk add; over several names, a union in which each name carries its own payload. */
export type BulkItem<N extends JobName = JobName> = {
  [K in N]: { name: K; payload: JobPayload<K>; opts?: EnqueueOptions };
}[N];

/**
 * A bulk item whose name is known only as a type parameter (a generic sweep). TypeScript cannot
 * see that `{ name: N; payload: JobPayload<N> }` is one member of the BulkItem union; this is the
 * one place that says so.
 */
export function bulkItem<N extends JobName>(
  name: N,
  payload: JobPayload<N>,
  opts?: EnqueueOptions,
): BulkItem {
  return { name, payload, ...(opts ? { opts } : {}) } as BulkItem;
}

/** The catalog's id of a bulk item's job (its name and payload travel together). */
export function bulkJobId<N extends JobName>(item: BulkItem<N>): string {
  return jobIdFor(item.name, item.payload);
}

export interface Queues {
  readonly prefix: string;
  /** Adds the job and returns its id; an add whose id still exists is ignored by BullMQ. */
  enqueue<N extends JobName>(name: N, payload: JobPayload<N>, opts?: EnqueueOptions): Promise<string>;
  /** One round trip per queue (addBulk), for the hot paths; returns ids in input order. */
  enqueueBulk(items: readonly BulkItem[]): Promise<string[]>;
  queue(name: QueueName): Queue;
  /** The producer connection, for shared state beside the jobs (a broadcast's rate bucket). */
  readonly redis: RedisClient;
  /** Resolves once Redis answers, or rejects after `timeoutMs`. */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface CreateQueuesOptions extends RedisTarget {
  prefix?: string;
  /** config `worker.max_attempts`: attempts of every job that does not pin its own. */
  maxAttempts?: number;
  /** How long an enqueue waits for a lost connection before failing (fail fast, not hang). */
  unavailableAfterMs?: number;
}

export class QueueUnavailableError extends Error {
  override readonly name = "QueueUnavailableError";
}

export function createQueues(options: CreateQueuesOptions): Queues {
  const prefix = resolvePrefix(options.prefix);
  const unavailableAfterMs = options.unavailableAfterMs ?? 1_000;
  const connection = producerConnection(options);
  connection.on("error", () => undefined); // reconnects on its own; enqueue reports the outage
  const queues = new Map<QueueName, Queue>();
  for (const name of QUEUE_NAMES) {
    const queue = new Queue(name, { connection, prefix: queuePrefix(prefix, name) });
    queue.on("error", () => undefined);
    queues.set(name, queue);
  }
  const queue = (name: QueueName): Queue => queues.get(name)!;

  const ensureConnected = async (): Promise<void> => {
    if (connection.status === "ready") return;
    await waitForReady(connection, unavailableAfterMs).catch((err: unknown) => {
      throw new QueueUnavailableError(`redis unavailable: ${(err as Error).message}`, { cause: err });
    });
  };

  const jobOptions = <N extends JobName>(name: N, payload: JobPayload<N>, opts: EnqueueOptions = {}) => {
    const options_: JobsOptions = {
      ...defaultJobOptions(name, options.maxAttempts),
      jobId: opts.jobId === undefined ? jobIdFor(name, payload) : assertJobId(opts.jobId),
      delay: delayOf(opts),
    };
    if (opts.priority !== undefined) options_.priority = opts.priority;
    if (opts.lifo) options_.lifo = true;
    return options_;
  };
  // A bulk item's name and payload travel together (BulkItem), so no cast is needed.
  const bulkJobOptions = <N extends JobName>(item: BulkItem<N>) =>
    jobOptions(item.name, item.payload, item.opts);

  return {
    prefix,
    queue,
    redis: connection,
    async enqueue(name, payload, opts) {
      const options_ = jobOptions(name, payload, opts);
      await ensureConnected();
      const job = await queue(queueOf(name)).add(name, payload, options_);
      return job.id!;
    },
    async enqueueBulk(items) {
      const byQueue = new Map<QueueName, { index: number; item: BulkItem }[]>();
      items.forEach((item, index) => {
        const group = byQueue.get(queueOf(item.name)) ?? [];
        group.push({ index, item });
        byQueue.set(queueOf(item.name), group);
      });
      const prepared = [...byQueue].map(([name, group]) => ({
        name,
        group,
        jobs: group.map(({ item }) => ({
          name: item.name,
          data: item.payload,
          opts: bulkJobOptions(item),
        })),
      }));
      await ensureConnected();
      const ids: string[] = new Array<string>(items.length);
      await Promise.all(
        prepared.map(async ({ name, group, jobs }) => {
          // A lone job goes through `add`: one script call, where addBulk wraps even one job in a
          // MULTI (about half the CPU per call, measured; the accept path enqueues one per batch).
          const added =
            jobs.length === 1
              ? [await queue(name).add(jobs[0]!.name, jobs[0]!.data, jobs[0]!.opts)]
              : await queue(name).addBulk(jobs);
          added.forEach((job, i) => (ids[group[i]!.index] = job.id!));
        }),
      );
      return ids;
    },
    ready: (timeoutMs = 5_000) => waitForReady(connection, timeoutMs),
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
      await connection.quit().catch(() => connection.disconnect());
    },
  };
}

function delayOf(opts: EnqueueOptions): number {
  if (opts.sendAt !== undefined) return Math.max(0, opts.sendAt.getTime() - Date.now());
  return Math.max(0, opts.delay ?? 0);
}
