import type { QueueName } from "@svc/core";
import type { JobsOptions } from "bullmq";

// The typed job catalog (Immich-style): job name -> queue, payload (ids only; handlers re-read
// the rows) and default options. Producers and workers both read it, so they cannot disagree.

export { QUEUE_NAMES, type QueueName } from "@svc/core";

export interface JobPayloads {
  "ingest-event": { eventId: string };
  /** The events one accept batch stored (group commit): one job instead of one per event. */
  "ingest-events": { eventIds: string[] };
  "apply-policy": { eventId: string; ruleKey: string };
  "deliver-message": { messageId: string; generation: number };
  /** Messages one ingest batch queued for now: one job instead of one per message. */
  "deliver-messages": { messages: { messageId: string; generation: number }[] };
  "close-digest": { digestId: string };
  /** `retries`/`firstAttemptAt`: the model failed this many times since then (docs/screening.md). */
  "screen-message": { messageId: string; generation: number; retries?: number; firstAttemptAt?: string };
  /** Messages one delivery worker handed to screening together: one job, screened side by side. */
  "screen-messages": { messages: { messageId: string; generation: number }[] };
  "send-callback": { callbackId: string };
  /** One try of one webhook delivery (docs/webhooks.md "Retries"). */
  "send-webhook": { deliveryId: string };
  /**
   * The first tries of the deliveries one fan-out wrote: one job for many (docs/webhooks.md).
   * `claimedUntil`: the fan-out wrote them already claimed for this job, until then (ISO).
   */
  "send-webhooks": { deliveryIds: string[]; claimedUntil?: string };
  /** Fixes a broadcast's audience and chunks, then enqueues the chunks (docs/broadcasts.md). */
  "plan-broadcast": { broadcastId: string; run: number };
  /** Sends to one chunk of a broadcast's members; `run` changes with every start and resume. */
  "send-broadcast-chunk": { broadcastId: string; run: number; position: number };
  /** `sweep` names one of SWEEP_NAMES; a job of a sweep since retired names one no longer there. */
  sweep: { sweep: string };
}
export type JobName = keyof JobPayloads;

/** Every recurring sweep (docs/operations.md "Recovery guarantees"): its scheduler id is `sweep-<name>`. */
export const SWEEP_NAMES = [
  "requeue-pending-events",
  "expire-queued",
  "reclaim-leases",
  "requeue-due",
  "close-due-digests",
  "expire-held-items",
  "requeue-callbacks",
  "requeue-webhooks",
  "requeue-screening",
  "advance-broadcasts",
  "apply-retention",
  "report-dead-jobs",
] as const;
export type SweepName = (typeof SWEEP_NAMES)[number];
export type JobPayload<N extends JobName> = JobPayloads[N];

export interface JobDefinition<N extends JobName> {
  queue: QueueName;
  /** Stable id: the same payload always maps to the same job, so BullMQ ignores a repeated add. */
  jobId: (payload: JobPayload<N>) => string;
  /** Pinned attempts; when absent the producer's `maxAttempts` (config `worker.max_attempts`) applies. */
  attempts?: number;
  backoffMs: number;
}

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// Completed jobs stay an hour so a repeated add (sweeper, client retry) is a no-op meanwhile;
// Postgres state is the real guarantee once they are gone.
export const KEEP_COMPLETED = { age: HOUR, count: 10_000 } as const;
// Dead jobs stay a week for `svcctl jobs retry-dead` and the dashboard.
export const KEEP_FAILED = { age: 7 * DAY, count: 50_000 } as const;
// Half-to-full exponential delay: retries of jobs that failed together spread out.
export const BACKOFF_JITTER = 0.5;
export const DEFAULT_MAX_ATTEMPTS = 8;

export const JOBS: { [N in JobName]: JobDefinition<N> } = {
  "ingest-event": { queue: "ingest", jobId: (p) => p.eventId, backoffMs: 1_000 },
  // An event is stored by exactly one accept batch, so its first id names the batch; the suffix
  // keeps it apart from that event's own `ingest-event` job (which the pending sweep may add).
  "ingest-events": { queue: "ingest", jobId: (p) => batchJobId(p.eventIds), backoffMs: 1_000 },
  // Rule keys never contain ':' (docs/api.md, "Request rules"); event ids contain no '-'.
  "apply-policy": { queue: "policy", jobId: (p) => `${p.eventId}-${p.ruleKey}`, backoffMs: 1_000 },
  // A reopened or re-approved message gets a new generation, hence a new job (docs/delivery.md).
  "deliver-message": {
    queue: "delivery",
    jobId: (p) => `${p.messageId}-${p.generation}`,
    backoffMs: 5_000,
  },
  // Named by its first message (a generation is queued by one ingest batch only); its own id, so
  // a message's `deliver-message` job (a retry, a sweep) is never swallowed by it.
  "deliver-messages": {
    queue: "delivery",
    jobId: (p) => batchJobId(p.messages.map((m) => `${m.messageId}-${m.generation}`)),
    backoffMs: 5_000,
  },
  "close-digest": { queue: "digests", jobId: (p) => p.digestId, backoffMs: 5_000 },
  // Like delivery: each hand-off and each retry is a new generation, hence a new job.
  "screen-message": {
    queue: "screening",
    jobId: (p) => `${p.messageId}-${p.generation}`,
    backoffMs: 2_000,
  },
  "screen-messages": {
    queue: "screening",
    jobId: (p) => batchJobId(p.messages.map((m) => `${m.messageId}-${m.generation}`)),
    backoffMs: 2_000,
  },
  // At most 10 attempts over about a day (150 s * (2^9 - 1) ≈ 21 h; docs/approvals.md, "Retries").
  "send-callback": { queue: "callbacks", jobId: (p) => p.callbackId, attempts: 10, backoffMs: 150_000 },
  // Tries are scheduled on the row (docs/webhooks.md "Retries"): each try is its own job, named
  // by its due time (webhookTryJobId), and a failed job is not retried by BullMQ.
  "send-webhook": { queue: "webhooks", jobId: (p) => p.deliveryId, attempts: 1, backoffMs: 1_000 },
  "send-webhooks": {
    queue: "webhooks",
    jobId: (p) => batchJobId(p.deliveryIds),
    attempts: 1,
    backoffMs: 1_000,
  },
  // A resume bumps `run`, so its jobs are new even while the paused run's jobs are still kept.
  "plan-broadcast": { queue: "broadcasts", jobId: (p) => `${p.broadcastId}-${p.run}-plan`, backoffMs: 2_000 },
  "send-broadcast-chunk": {
    queue: "broadcasts",
    jobId: (p) => `${p.broadcastId}-${p.run}-${p.position}`,
    backoffMs: 2_000,
  },
  // A failed sweep is simply run again at its next tick.
  sweep: { queue: "scheduler", jobId: (p) => `sweep-${p.sweep}`, attempts: 1, backoffMs: 1_000 },
};

export class InvalidJobIdError extends Error {
  override readonly name = "InvalidJobIdError";
}

// BullMQ rejects ids with ':' (its key separator) and ids that parse as integers.
export function assertJobId(id: string): string {
  if (id.length === 0 || id.includes(":") || `${parseInt(id, 10)}` === id) {
    throw new InvalidJobIdError(
      `invalid job id ${JSON.stringify(id)}: must be non-empty, without ':', not an integer`,
    );
  }
  return id;
}

function batchJobId(ids: readonly string[]): string {
  if (ids.length === 0) throw new InvalidJobIdError("a batch job needs at least one id");
  return `${ids[0]}-batch`;
}

export function jobIdFor<N extends JobName>(name: N, payload: JobPayload<N>): string {
  const definition = JOBS[name] as JobDefinition<N>;
  return assertJobId(definition.jobId(payload));
}

export function queueOf(name: JobName): QueueName {
  return JOBS[name].queue;
}

export function jobNamesOf(queue: QueueName): JobName[] {
  return (Object.keys(JOBS) as JobName[]).filter((name) => JOBS[name].queue === queue);
}

export function defaultJobOptions(name: JobName, maxAttempts = DEFAULT_MAX_ATTEMPTS): JobsOptions {
  const definition = JOBS[name];
  return {
    attempts: definition.attempts ?? maxAttempts,
    backoff: { type: "exponential", delay: definition.backoffMs, jitter: BACKOFF_JITTER },
    removeOnComplete: { ...KEEP_COMPLETED },
    removeOnFail: { ...KEEP_FAILED },
  };
}
