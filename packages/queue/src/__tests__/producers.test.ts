import { createQueues, QueueUnavailableError, type Queues } from "../producers";
import { InvalidJobIdError } from "../catalog";
import { REDIS_URL, dropPrefix, scratchPrefix } from "./redis-scratch";

const prefix = scratchPrefix("producers");
let queues: Queues;

beforeAll(async () => {
  queues = createQueues({ redisUrl: REDIS_URL, prefix, maxAttempts: 5 });
  await queues.ready();
});
afterAll(async () => {
  await queues.close();
  await dropPrefix(prefix);
});

describe("createQueues", () => {
  it("stores the job under the catalog id with the default options", async () => {
    const id = await queues.enqueue("ingest-event", { eventId: "evt_P1" });
    expect(id).toBe("evt_P1");
    const job = await queues.queue("ingest").getJob(id);
    expect(job?.name).toBe("ingest-event");
    expect(job?.data).toEqual({ eventId: "evt_P1" });
    expect(job?.opts.attempts).toBe(5);
    expect(job?.opts.backoff).toEqual({ type: "exponential", delay: 1000, jitter: 0.5 });
    expect(await job?.getState()).toBe("waiting");
  });

  it("an enqueue repeated while the job exists keeps one job", async () => {
    const payload = { eventId: "evt_P2", ruleKey: "welcome" };
    const ids = await Promise.all([1, 2, 3].map(() => queues.enqueue("apply-policy", payload)));
    expect(ids).toEqual(["evt_P2-welcome", "evt_P2-welcome", "evt_P2-welcome"]);
    expect(await queues.queue("policy").getJobCountByTypes("waiting")).toBe(1);
  });

  it("enqueueBulk spreads jobs over their queues and returns ids in input order", async () => {
    const ids = await queues.enqueueBulk([
      { name: "deliver-message", payload: { messageId: "msg_B1", generation: 1 } },
      { name: "screen-message", payload: { messageId: "msg_B1", generation: 2 } },
      { name: "deliver-message", payload: { messageId: "msg_B2", generation: 1 } },
      { name: "deliver-message", payload: { messageId: "msg_B1", generation: 1 } },
    ]);
    expect(ids).toEqual(["msg_B1-1", "msg_B1-2", "msg_B2-1", "msg_B1-1"]);
    expect(await queues.queue("delivery").getJobCountByTypes("waiting")).toBe(2);
    expect(await queues.queue("screening").getJobCountByTypes("waiting")).toBe(1);
  });

  it("a lone job of enqueueBulk (one add, no MULTI) gets the catalog id, options and delay", async () => {
    const [id] = await queues.enqueueBulk([
      { name: "ingest-events", payload: { eventIds: ["evt_L1", "evt_L2"] }, opts: { delay: 60_000 } },
    ]);
    expect(id).toBe("evt_L1-batch");
    const job = await queues.queue("ingest").getJob(id!);
    expect(job?.data).toEqual({ eventIds: ["evt_L1", "evt_L2"] });
    expect(job?.opts.attempts).toBe(5);
    expect(job?.opts.backoff).toEqual({ type: "exponential", delay: 1000, jitter: 0.5 });
    expect(await job?.getState()).toBe("delayed");
    // Repeated while the job exists: still one job.
    await queues.enqueueBulk([{ name: "ingest-events", payload: { eventIds: ["evt_L1", "evt_L2"] } }]);
    expect(await queues.queue("ingest").getJobCountByTypes("delayed")).toBe(1);
    expect(await queues.queue("ingest").getJobState(id!)).toBe("delayed");
  });

  it("delay and sendAt hold the job back; a past sendAt runs at once", async () => {
    const before = Date.now();
    await queues.enqueue("close-digest", { digestId: "dig_D1" }, { delay: 60_000 });
    await queues.enqueue("close-digest", { digestId: "dig_D2" }, { sendAt: new Date(before + 120_000) });
    await queues.enqueue("close-digest", { digestId: "dig_D3" }, { sendAt: new Date(before - 5_000) });
    const digests = queues.queue("digests");
    const [d1, d2, d3] = await Promise.all(["dig_D1", "dig_D2", "dig_D3"].map((id) => digests.getJob(id)));
    expect(await d1?.getState()).toBe("delayed");
    expect(d1?.opts.delay).toBe(60_000);
    expect(await d2?.getState()).toBe("delayed");
    expect(d2!.opts.delay!).toBeGreaterThan(119_000);
    expect(d2!.opts.delay!).toBeLessThanOrEqual(120_000);
    expect(await d3?.getState()).toBe("waiting");
  });

  it("refuses an explicit job id with ':' before any round trip", async () => {
    await expect(
      queues.enqueue("send-callback", { callbackId: "cbk_1" }, { jobId: "cbk:1" }),
    ).rejects.toThrow(InvalidJobIdError);
  });

  it("fails fast with QueueUnavailableError when Redis cannot be reached", async () => {
    const offline = createQueues({ redisUrl: "redis://127.0.0.1:1", prefix, unavailableAfterMs: 300 });
    const started = Date.now();
    await expect(offline.enqueue("ingest-event", { eventId: "evt_OFF" })).rejects.toThrow(
      QueueUnavailableError,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    await offline.close();
  });
});
