import { gaveUpReason, recoveryTimings, type RecoveryTimings } from "@svc/core";
import {
  PermanentJobError,
  requeueStuck,
  type JobContext,
  type JobHandler,
  type Queues,
  type Sweep,
} from "@svc/queue";
import {
  $transaction,
  markEventFailed as markFailed,
  pendingEventIdsBefore,
  type RootDatabase,
} from "@svc/store";
import { emitWebhookEvents } from "../outbox/emit";
import type { HandOffDeps } from "../shared/hand-off";
import { enqueueFollowUps, followUpsOfProcessed } from "./follow-ups";
import { createIngestBatcher, type IngestBatcherOptions } from "./ingest-batcher";
import type { IngestDeps } from "./ingest-types";

export interface IngestJobDeps extends IngestDeps, HandOffDeps {}

export interface IngestJobHandlers {
  "ingest-event": JobHandler<"ingest-event">;
  "ingest-events": JobHandler<"ingest-events">;
}

/**
 * The ingest queue's jobs: `ingest-event` (one event: a lone accept, the pending sweep) and
 * `ingest-events` (the events of one accept batch). Both ingest, then enqueue deliveries and
 * digest closings after the commit; every job running at once in this process shares one
 * batcher, so their events share transactions (ingest-batcher.ts). A retry of a job that
 * committed but could not enqueue re-announces the follow-ups. The last failed attempt marks the
 * event `failed` with the error (docs/events.md); in a batch, only the events that failed.
 */
export function ingestJobs(deps: IngestJobDeps, options: IngestBatcherOptions = {}): IngestJobHandlers {
  const batcher = createIngestBatcher(deps, options);
  const ingestOne = async (eventId: string): Promise<IngestJobResult> => {
    const result = await batcher.ingest(eventId);
    // Processed results come back with their follow-ups already enqueued.
    if (result.status === "processed") return { status: "processed", outcomes: result.outcomes.length };
    if (result.reason === "processed") {
      const now = deps.now();
      await enqueueFollowUps(deps, await followUpsOfProcessed(deps.prisma, eventId, now), now);
    }
    return { status: "skipped", reason: result.reason };
  };

  return {
    "ingest-event": async ({ eventId }, job) => {
      try {
        return await ingestOne(eventId);
      } catch (error) {
        if (isLastAttempt(job, error)) await markEventFailed(deps.prisma, eventId, error, failedAt(deps));
        throw error;
      }
    },
    "ingest-events": async ({ eventIds }, job) => {
      const ids = [...new Set(eventIds)];
      const settled = await Promise.allSettled(ids.map(ingestOne));
      const failed = ids.flatMap((eventId, i) => {
        const s = settled[i]!;
        return s.status === "rejected" ? [{ eventId, error: s.reason as unknown }] : [];
      });
      const summary = { processed: 0, skipped: 0, failed: failed.length };
      for (const s of settled) if (s.status === "fulfilled") summary[s.value.status]++;
      if (failed.length === 0) return summary;
      // A retry re-runs the whole job: committed events are skipped (their follow-ups
      // re-announced), so only the failed ones are ingested again.
      for (const { eventId, error } of failed) {
        if (isLastAttempt(job, error)) await markEventFailed(deps.prisma, eventId, error, failedAt(deps));
      }
      const retryable = failed.filter((f) => !(f.error instanceof PermanentJobError));
      const first = (retryable[0] ?? failed[0])!;
      const message = `${failed.length} of ${ids.length} events failed (${first.eventId}: ${errorMessage(first.error)})`;
      throw retryable.length > 0 ? new Error(message) : new PermanentJobError(message);
    },
  };
}

type IngestJobResult = { status: "processed"; outcomes: number } | { status: "skipped"; reason: string };

/** The `ingest-event` handler alone (tests that run one job type). */
export function ingestEventJob(
  deps: IngestJobDeps,
  options: IngestBatcherOptions = {},
): JobHandler<"ingest-event"> {
  return ingestJobs(deps, options)["ingest-event"];
}

// The failure may be the clock's own: the event is still marked failed, at the system's time.
function failedAt(deps: Pick<IngestDeps, "now">): Date {
  try {
    return deps.now();
  } catch {
    return new Date();
  }
}

const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

function isLastAttempt(job: Pick<JobContext, "attemptsMade" | "attempts">, error: unknown): boolean {
  return error instanceof PermanentJobError || job.attemptsMade + 1 >= job.attempts;
}

/**
 * Compare-and-set: only a still-pending event becomes `failed` (a committed one stays processed),
 * with its `event.failed` webhook event in the same transaction.
 */
async function markEventFailed(
  prisma: RootDatabase,
  eventId: string,
  error: unknown,
  now: Date,
): Promise<boolean> {
  const reason = gaveUpReason(errorMessage(error));
  return $transaction(prisma, async (tx) => {
    const failed = await markFailed(tx, eventId, reason);
    if (failed)
      await emitWebhookEvents(tx, [
        {
          type: "event.failed",
          occurredAt: now,
          subject: { kind: "event", id: eventId },
          snapshot: { status: "failed", error: reason },
        },
      ]);
    return failed;
  });
}

/** Timings of the recovery sweeps at the default settings (docs/operations.md). */
const DEFAULT_TIMINGS = recoveryTimings({ lease_seconds: 30, sweep_seconds: 10 });

/**
 * Sweep `requeue-pending-events`: events still `pending` after the grace period lost their job
 * (crash between commit and enqueue, Redis down or restarted empty); enqueue them again under the
 * stable job id, so a job still in Redis swallows the add.
 */
export function requeuePendingEventsSweep(
  deps: { prisma: RootDatabase; queues: Pick<Queues, "enqueueBulk"> },
  timings: Pick<RecoveryTimings, "sweepEveryMs" | "pendingEventGraceMs"> = DEFAULT_TIMINGS,
): Sweep {
  return {
    name: "requeue-pending-events",
    every: timings.sweepEveryMs,
    run: ({ now }) => {
      const pendingBefore = new Date(now.getTime() - timings.pendingEventGraceMs);
      return requeueStuck({
        queues: deps.queues,
        job: "ingest-event",
        list: async (limit) =>
          (await pendingEventIdsBefore(deps.prisma, pendingBefore, limit)).map((eventId) => ({ eventId })),
      });
    },
  };
}
