import { gaveUpReason } from "@svc/core";
import {
  PermanentJobError,
  requeueStuck,
  type JobContext,
  type JobHandler,
  type Queues,
  type Sweep,
} from "@svc/queue";
import type { PrismaClient } from "@svc/store";
import { enqueueFollowUps, followUpsOfProcessed } from "./follow-ups";
import { createIngestBatcher, type IngestBatcherOptions } from "./ingest-batcher";
import type { IngestDeps } from "./ingest-event";

export interface IngestJobDeps extends IngestDeps {
  queues: Pick<Queues, "enqueueBulk">;
}

/**
 * The `ingest-event` job: ingest, then enqueue deliveries and digest closings after the commit.
 * A retry of a job that committed but could not enqueue re-announces the follow-ups. The last
 * failed attempt marks the event `failed` with the error (SPEC 3.2).
 */
export function ingestEventJob(
  deps: IngestJobDeps,
  options: IngestBatcherOptions = {},
): JobHandler<"ingest-event"> {
  // Jobs running at once in this process share transactions (ingest-batcher.ts).
  const batcher = createIngestBatcher(deps, options);
  return async ({ eventId }, job) => {
    try {
      // Processed results come back with their follow-ups already enqueued.
      const result = await batcher.ingest(eventId);
      if (result.status === "processed") return { status: "processed", outcomes: result.outcomes.length };
      if (result.reason === "processed") {
        await enqueueFollowUps(deps.queues, await followUpsOfProcessed(deps.prisma, eventId, deps.now()));
      }
      return { status: "skipped", reason: result.reason };
    } catch (error) {
      if (isLastAttempt(job, error)) await markEventFailed(deps.prisma, eventId, error);
      throw error;
    }
  };
}

function isLastAttempt(job: Pick<JobContext, "attemptsMade" | "attempts">, error: unknown): boolean {
  return error instanceof PermanentJobError || job.attemptsMade + 1 >= job.attempts;
}

/** Compare-and-set: only a still-pending event becomes `failed` (a committed one stays processed). */
export async function markEventFailed(
  prisma: PrismaClient,
  eventId: string,
  error: unknown,
): Promise<boolean> {
  const message = error instanceof Error ? error.message : String(error);
  const { count } = await prisma.event.updateMany({
    where: { id: eventId, status: "pending" },
    data: { status: "failed", error: gaveUpReason(message), attempts: { increment: 1 } },
  });
  return count === 1;
}

export const PENDING_EVENT_GRACE_MS = 30_000;

/**
 * Sweep `requeue-pending-events`: events still `pending` after the grace period lost their job
 * (crash between commit and enqueue, Redis down); enqueue them again under the stable job id.
 */
export function requeuePendingEventsSweep(
  deps: { prisma: PrismaClient; queues: Pick<Queues, "enqueueBulk"> },
  every = 30_000,
): Sweep {
  return {
    name: "requeue-pending-events",
    every,
    run: ({ now }) =>
      requeueStuck({
        queues: deps.queues,
        job: "ingest-event",
        list: async (limit) => {
          const rows = await deps.prisma.event.findMany({
            where: {
              status: "pending",
              created_at: { lt: new Date(now.getTime() - PENDING_EVENT_GRACE_MS) },
            },
            orderBy: { created_at: "asc" },
            take: limit,
            select: { id: true },
          });
          return rows.map((row) => ({ eventId: row.id }));
        },
      }),
  };
}
