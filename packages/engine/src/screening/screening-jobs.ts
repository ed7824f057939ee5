import { recoveryTimings, type RecoveryTimings } from "@svc/core";
import { JOBS, requeueStuck, type JobHandler, type Queues, type Sweep } from "@svc/queue";
import { listAwaitingScreening, type RootDatabase } from "@svc/store";
import { screeningModelFor, type ScreeningModel } from "./models";
import { screenMessages, type ScreeningDeps } from "./screen-messages";

// The `screening` queue's jobs and the sweep that recovers a lost one (docs/screening.md).

export type ScreeningJobDeps = Omit<ScreeningDeps, "model" | "retryBaseMs"> &
  Partial<Pick<ScreeningDeps, "model" | "retryBaseMs">>;

/** Never asked: with screening off, waiting messages go back to delivery without a verdict. */
const switchedOff: ScreeningModel = {
  ask: async () => ({ ok: false, error: "screening is disabled", retryable: false }),
};

export function screeningJobs(deps: ScreeningJobDeps): {
  "screen-message": JobHandler<"screen-message">;
  "screen-messages": JobHandler<"screen-messages">;
} {
  const full: ScreeningDeps = {
    ...deps,
    model: deps.model ?? (deps.config.screening.enabled ? screeningModelFor(deps.config) : switchedOff),
    retryBaseMs: deps.retryBaseMs ?? JOBS["screen-message"].backoffMs,
  };
  return {
    "screen-message": async (payload) => (await screenMessages(full, [payload]))[0]!,
    "screen-messages": async ({ messages }) => screenMessages(full, messages),
  };
}

/** Waiting this long for screening without a verdict, a message's job is presumed lost (at the defaults). */
const SCREENING_WAIT_GRACE_MS = recoveryTimings({
  lease_seconds: 30,
  sweep_seconds: 10,
}).screeningWaitGraceMs;

/**
 * `requeue-screening` (docs/screening.md "Recovery"): messages waiting for screening longer than
 * the grace get their `screen-message` job again under its stable id, so a job still in Redis
 * swallows the add and a lost one (a crash between hand-off and enqueue, Redis down) is recreated.
 */
export function requeueScreeningSweep(
  deps: { prisma: RootDatabase; queues: Pick<Queues, "enqueueBulk"> },
  timings: Pick<RecoveryTimings, "sweepEveryMs" | "screeningWaitGraceMs"> = {
    sweepEveryMs: 10_000,
    screeningWaitGraceMs: SCREENING_WAIT_GRACE_MS,
  },
): Sweep {
  return {
    name: "requeue-screening",
    every: timings.sweepEveryMs,
    run: ({ now }) =>
      requeueStuck({
        queues: deps.queues,
        job: "screen-message",
        list: (limit) =>
          listAwaitingScreening(deps.prisma, new Date(now.getTime() - timings.screeningWaitGraceMs), limit),
      }),
  };
}
