// A broadcast's lifecycle (docs/broadcasts.md "Lifecycle"): the operator's actions and the
// worker's own steps, one table. Pure: callers pass the broadcast's `send_at` and `now`.

export const BROADCAST_STATUSES = [
  "draft",
  "scheduled",
  "running",
  "paused",
  "completed",
  "cancelled",
  "failed",
] as const;
export type BroadcastStatus = (typeof BROADCAST_STATUSES)[number];

/** Operator actions (API and svcctl). */
export const BROADCAST_ACTIONS = ["start", "pause", "resume", "cancel"] as const;
export type BroadcastAction = (typeof BROADCAST_ACTIONS)[number];

/** Steps the workers take: `begin` at `send_at`, `finish` once every chunk is done, `fail`. */
export type BroadcastStep = BroadcastAction | "begin" | "finish" | "fail";

export type BroadcastTransition = { ok: true; to: BroadcastStatus } | { ok: false; detail: string };

export interface TransitionTimes {
  sendAt: Date | null;
  now: Date;
}

/** Running now, or waiting for `send_at` while it lies ahead. */
function runningOrScheduled({ sendAt, now }: TransitionTimes): BroadcastStatus {
  return sendAt !== null && sendAt.getTime() > now.getTime() ? "scheduled" : "running";
}

const FROM: Record<BroadcastStep, readonly BroadcastStatus[]> = {
  start: ["draft"],
  pause: ["scheduled", "running"],
  resume: ["paused"],
  cancel: ["draft", "scheduled", "running", "paused"],
  begin: ["scheduled"],
  finish: ["running"],
  fail: ["scheduled", "running", "paused"],
};

/** Where `step` takes a broadcast in `from`, or why it cannot (the API answers 409 `Invalid state`). */
export function broadcastTransition(
  from: BroadcastStatus,
  step: BroadcastStep,
  times: TransitionTimes,
): BroadcastTransition {
  if (!FROM[step].includes(from)) {
    return { ok: false, detail: `cannot ${step} a broadcast that is ${from}` };
  }
  switch (step) {
    case "start":
    case "resume":
      return { ok: true, to: runningOrScheduled(times) };
    case "begin":
      return runningOrScheduled(times) === "running"
        ? { ok: true, to: "running" }
        : { ok: false, detail: "send_at has not come yet" };
    case "pause":
      return { ok: true, to: "paused" };
    case "cancel":
      return { ok: true, to: "cancelled" };
    case "finish":
      return { ok: true, to: "completed" };
    case "fail":
      return { ok: true, to: "failed" };
  }
}

/** Statuses a broadcast never leaves. */
export function isFinalBroadcastStatus(status: BroadcastStatus): boolean {
  return status === "completed" || status === "cancelled" || status === "failed";
}

/** Reason stored on the queued messages of a cancelled broadcast (docs/messages.md). */
export const BROADCAST_CANCELLED = "broadcast cancelled";
