import type { JobHandler, Sweep } from "@svc/queue";
import { findBroadcastsToAdvance } from "@svc/store";
import { enqueuePlan, planBroadcast, type PlanDeps } from "./plan-broadcast";
import { failBroadcast, sendBroadcastChunk, type ChunkDeps } from "./send-broadcast-chunk";

// The `broadcasts` queue's jobs and the sweep that repairs lost ones (docs/broadcasts.md).

export type BroadcastJobDeps = PlanDeps & ChunkDeps;

export function broadcastJobs(deps: BroadcastJobDeps): {
  "plan-broadcast": JobHandler<"plan-broadcast">;
  "send-broadcast-chunk": JobHandler<"send-broadcast-chunk">;
} {
  return {
    "plan-broadcast": (payload) => planBroadcast(deps, payload),
    "send-broadcast-chunk": async (payload, job) => {
      try {
        return await sendBroadcastChunk(deps, payload);
      } catch (error) {
        // The last attempt: the broadcast fails with the reason rather than stay running forever.
        if (job.attemptsMade + 1 >= job.attempts)
          await failBroadcast(deps, payload.broadcastId, `gave up: ${(error as Error).message}`);
        throw error;
      }
    },
  };
}

const BATCH = 200;
/** Re-plans at most once a minute per broadcast (the id changes each minute). */
const REPLAN_BUCKET_MS = 60_000;

/**
 * Sweep `advance-broadcasts`: scheduled broadcasts whose time came and running ones get a plan
 * job, which enqueues their open chunks under stable ids: a no-op while the jobs exist, a repair
 * when a crash between commit and enqueue (or Redis) lost them.
 */
export function advanceBroadcastsSweep(deps: BroadcastJobDeps, every = 15_000): Sweep {
  return {
    name: "advance-broadcasts",
    every,
    run: async ({ now }) => {
      const rows = await findBroadcastsToAdvance(deps.prisma, now, BATCH);
      const bucket = Math.floor(now.getTime() / REPLAN_BUCKET_MS);
      for (const row of rows) {
        await enqueuePlan(deps, { ...row, send_at: null }, `${row.id}-${row.run}-plan-sweep-${bucket}`);
      }
      return { found: rows.length };
    },
  };
}
