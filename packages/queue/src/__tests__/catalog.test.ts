import {
  InvalidJobIdError,
  QUEUE_NAMES,
  assertJobId,
  defaultJobOptions,
  jobIdFor,
  jobNamesOf,
  queueOf,
  type JobName,
  type JobPayload,
} from "../catalog";

const samples: { [N in JobName]: { payload: JobPayload<N>; queue: string; id: string } } = {
  "ingest-event": {
    payload: { eventId: "evt_01J0AAAAAAAAAAAAAAAAAAAAAA" },
    queue: "ingest",
    id: "evt_01J0AAAAAAAAAAAAAAAAAAAAAA",
  },
  "ingest-events": {
    payload: { eventIds: ["evt_01J0AAAAAAAAAAAAAAAAAAAAAA", "evt_01J0AAAAAAAAAAAAAAAAAAAAAB"] },
    queue: "ingest",
    id: "evt_01J0AAAAAAAAAAAAAAAAAAAAAA-batch",
  },
  "apply-policy": {
    payload: { eventId: "evt_01J0AAAAAAAAAAAAAAAAAAAAAA", ruleKey: "order.shipped-v2" },
    queue: "policy",
    id: "evt_01J0AAAAAAAAAAAAAAAAAAAAAA-order.shipped-v2",
  },
  "deliver-message": {
    payload: { messageId: "msg_01J0BBBBBBBBBBBBBBBBBBBBBB", generation: 3 },
    queue: "delivery",
    id: "msg_01J0BBBBBBBBBBBBBBBBBBBBBB-3",
  },
  "deliver-messages": {
    payload: {
      messages: [
        { messageId: "msg_01J0BBBBBBBBBBBBBBBBBBBBBB", generation: 3 },
        { messageId: "msg_01J0BBBBBBBBBBBBBBBBBBBBBC", generation: 0 },
      ],
    },
    queue: "delivery",
    id: "msg_01J0BBBBBBBBBBBBBBBBBBBBBB-3-batch",
  },
  "close-digest": { payload: { digestId: "dig_01J0CC" }, queue: "digests", id: "dig_01J0CC" },
  "screen-message": {
    payload: { messageId: "msg_01J0DD", generation: 2 },
    queue: "screening",
    id: "msg_01J0DD-2",
  },
  "screen-messages": {
    payload: {
      messages: [
        { messageId: "msg_01J0DD", generation: 2 },
        { messageId: "msg_01J0DE", generation: 1 },
      ],
    },
    queue: "screening",
    id: "msg_01J0DD-2-batch",
  },
  "send-callback": { payload: { callbackId: "cbk_01J0EE" }, queue: "callbacks", id: "cbk_01J0EE" },
  "send-webhook": { payload: { deliveryId: "whd_01J0EE" }, queue: "webhooks", id: "whd_01J0EE" },
  "send-webhooks": {
    payload: { deliveryIds: ["whd_01J0EE", "whd_01J0FF"] },
    queue: "webhooks",
    id: "whd_01J0EE-batch",
  },
  "plan-broadcast": {
    payload: { broadcastId: "brd_01J0FF", run: 2 },
    queue: "broadcasts",
    id: "brd_01J0FF-2-plan",
  },
  "send-broadcast-chunk": {
    payload: { broadcastId: "brd_01J0FF", run: 2, position: 7 },
    queue: "broadcasts",
    id: "brd_01J0FF-2-7",
  },
  sweep: { payload: { sweep: "pending-events" }, queue: "scheduler", id: "sweep-pending-events" },
};

describe("job catalog", () => {
  it.each(Object.keys(samples) as JobName[])("%s: queue, stable id without ':'", (name) => {
    const sample = samples[name];
    expect(queueOf(name)).toBe(sample.queue);
    const id = jobIdFor(name, sample.payload as never);
    expect(id).toBe(sample.id);
    expect(id).not.toContain(":");
    expect(jobIdFor(name, structuredClone(sample.payload) as never)).toBe(id);
  });

  it("every queue has at least one job and every job a known queue", () => {
    expect(QUEUE_NAMES.map((queue) => [queue, jobNamesOf(queue)])).toEqual([
      ["ingest", ["ingest-event", "ingest-events"]],
      ["policy", ["apply-policy"]],
      ["delivery", ["deliver-message", "deliver-messages"]],
      ["digests", ["close-digest"]],
      ["screening", ["screen-message", "screen-messages"]],
      ["callbacks", ["send-callback"]],
      ["webhooks", ["send-webhook", "send-webhooks"]],
      ["broadcasts", ["plan-broadcast", "send-broadcast-chunk"]],
      ["scheduler", ["sweep"]],
    ]);
  });

  it("a batch job needs at least one id", () => {
    expect(() => jobIdFor("ingest-events", { eventIds: [] })).toThrow(InvalidJobIdError);
    expect(() => jobIdFor("deliver-messages", { messages: [] })).toThrow(InvalidJobIdError);
  });

  it("a new generation is a new delivery job", () => {
    const first = jobIdFor("deliver-message", { messageId: "msg_X", generation: 1 });
    const second = jobIdFor("deliver-message", { messageId: "msg_X", generation: 2 });
    expect([first, second]).toEqual(["msg_X-1", "msg_X-2"]);
  });

  it.each([
    ["a:b", true],
    ["repeat:x:1", true],
    ["", true],
    ["123", true],
    ["00123", false],
    ["evt_01J0-rule", false],
  ])("assertJobId(%j) rejects=%s", (id, rejects) => {
    if (rejects) expect(() => assertJobId(id)).toThrow(InvalidJobIdError);
    else expect(assertJobId(id)).toBe(id);
  });

  it("a payload producing ':' is refused before reaching BullMQ", () => {
    expect(() => jobIdFor("apply-policy", { eventId: "evt_1", ruleKey: "bad:key" })).toThrow(
      InvalidJobIdError,
    );
  });

  it.each([
    ["ingest-event", 8, 1_000],
    ["deliver-message", 8, 5_000],
    ["send-callback", 10, 150_000],
    ["send-webhook", 1, 1_000],
    ["send-webhooks", 1, 1_000],
    ["sweep", 1, 1_000],
  ] as const)(
    "default options of %s: %i attempts, exponential %i ms with jitter",
    (name, attempts, delay) => {
      expect(defaultJobOptions(name)).toEqual({
        attempts,
        backoff: { type: "exponential", delay, jitter: 0.5 },
        removeOnComplete: { age: 3600, count: 10_000 },
        removeOnFail: { age: 604_800, count: 50_000 },
      });
    },
  );

  it("maxAttempts from config applies only where the catalog pins nothing", () => {
    expect(defaultJobOptions("apply-policy", 3).attempts).toBe(3);
    expect(defaultJobOptions("send-callback", 3).attempts).toBe(10);
  });
});
