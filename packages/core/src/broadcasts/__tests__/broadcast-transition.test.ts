import {
  BROADCAST_STATUSES,
  broadcastTransition,
  isFinalBroadcastStatus,
  type BroadcastStatus,
  type BroadcastStep,
  type TransitionTimes,
} from "../broadcast-transition";

const now = new Date("2026-11-24T12:00:00Z");
const past = { sendAt: new Date("2026-11-24T11:00:00Z"), now };
const ahead = { sendAt: new Date("2026-11-24T13:00:00Z"), now };
const none: TransitionTimes = { sendAt: null, now };

// Every (status, step) pair: the allowed ones with their target, everything else refused.
const ALLOWED: [BroadcastStatus, BroadcastStep, TransitionTimes, BroadcastStatus][] = [
  ["draft", "start", none, "running"],
  ["draft", "start", past, "running"],
  ["draft", "start", ahead, "scheduled"],
  ["scheduled", "pause", ahead, "paused"],
  ["running", "pause", none, "paused"],
  ["paused", "resume", none, "running"],
  ["paused", "resume", past, "running"],
  ["paused", "resume", ahead, "scheduled"],
  ["draft", "cancel", none, "cancelled"],
  ["scheduled", "cancel", ahead, "cancelled"],
  ["running", "cancel", none, "cancelled"],
  ["paused", "cancel", none, "cancelled"],
  ["scheduled", "begin", past, "running"],
  ["running", "finish", none, "completed"],
  ["scheduled", "fail", ahead, "failed"],
  ["running", "fail", none, "failed"],
  ["paused", "fail", none, "failed"],
];

const STEPS: BroadcastStep[] = ["start", "pause", "resume", "cancel", "begin", "finish", "fail"];

describe("broadcastTransition", () => {
  it.each(ALLOWED)("%s --%s--> (send_at %p) %s", (from, step, times, to) => {
    expect(broadcastTransition(from, step, times)).toEqual({ ok: true, to });
  });

  const allowed = new Set(ALLOWED.map(([from, step]) => `${from}:${step}`));
  const refused = BROADCAST_STATUSES.flatMap((from) =>
    STEPS.filter((step) => !allowed.has(`${from}:${step}`)).map((step) => [from, step] as const),
  );
  it.each(refused)("%s refuses %s", (from, step) => {
    expect(broadcastTransition(from, step, none)).toEqual({
      ok: false,
      detail: `cannot ${step} a broadcast that is ${from}`,
    });
  });

  it("begin waits while send_at lies ahead", () => {
    expect(broadcastTransition("scheduled", "begin", ahead)).toEqual({
      ok: false,
      detail: "send_at has not come yet",
    });
  });

  it("completed, cancelled and failed are final", () => {
    expect(BROADCAST_STATUSES.filter(isFinalBroadcastStatus)).toEqual(["completed", "cancelled", "failed"]);
  });
});
