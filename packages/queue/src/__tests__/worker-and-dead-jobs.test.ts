import type { Worker } from "bullmq";
import { createQueues, type Queues } from "../producers";
import { createWorker, dispatchTo, type JobLogger } from "../worker";
import { PermanentJobError } from "../errors";
import { retryDeadJobs } from "../dead-jobs";
import { REDIS_URL, dropPrefix, scratchPrefix, waitFor } from "./redis-scratch";

// Batch jobs (`ingest-events`, `deliver-messages`) share their queues; these tests never enqueue them.
const unusedHandler = async (): Promise<never> => {
  throw new Error("not enqueued by this test");
};

const prefix = scratchPrefix("dead");
let queues: Queues;
let workers: Worker[] = [];

function recordingLogger() {
  const lines: { level: string; message: string; meta?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, meta?: Record<string, unknown>) =>
    lines.push({ level, message, meta });
  const logger: JobLogger = { info: at("info"), warn: at("warn"), error: at("error") };
  return { lines, logger };
}

beforeAll(async () => {
  // Two attempts, 1 ms apart at most: the test sees a job die within milliseconds.
  queues = createQueues({ redisUrl: REDIS_URL, prefix, maxAttempts: 2 });
  await queues.ready();
});
afterEach(async () => {
  await Promise.all(workers.map((w) => w.close()));
  workers = [];
});
afterAll(async () => {
  await queues.close();
  await dropPrefix(prefix);
});

class HttpStatusError extends Error {
  constructor(readonly status: number) {
    super(`provider answered ${status}`);
  }
}

describe("createWorker", () => {
  it("a transient error spends every attempt, then the job is dead; failures are logged without payload", async () => {
    const { lines, logger } = recordingLogger();
    const calls: number[] = [];
    workers.push(
      createWorker({
        queue: "ingest",
        redisUrl: REDIS_URL,
        prefix,
        logger,
        processor: dispatchTo("ingest", {
          "ingest-events": unusedHandler,
          "ingest-event": async (_payload, job) => {
            calls.push(job.attemptsMade);
            throw new Error("database busy");
          },
        }),
      }),
    );
    await queues.enqueue("ingest-event", { eventId: "evt_T1" }, { jobId: "evt_T1" });
    const ingest = queues.queue("ingest");
    // The backoff is exponential from 1 s; promote the retry instead of waiting for it.
    await waitFor(async () => (await ingest.getJob("evt_T1"))?.attemptsMade === 1);
    await (await ingest.getJob("evt_T1"))!.promote().catch(() => undefined);
    await waitFor(async () => (await ingest.getJob("evt_T1"))?.finishedOn !== undefined);
    expect(calls).toEqual([0, 1]);
    expect(await (await ingest.getJob("evt_T1"))!.getState()).toBe("failed");
    expect(lines).toEqual([
      {
        level: "warn",
        message: "job failed, will retry",
        meta: {
          queue: "ingest",
          job_id: "evt_T1",
          job_name: "ingest-event",
          attempts_made: 1,
          attempts: 2,
          error_name: "Error",
          error: "database busy",
        },
      },
      {
        level: "error",
        message: "job failed for good",
        meta: {
          queue: "ingest",
          job_id: "evt_T1",
          job_name: "ingest-event",
          attempts_made: 2,
          attempts: 2,
          error_name: "Error",
          error: "database busy",
        },
      },
    ]);
  });

  it.each([
    ["PermanentJobError thrown by the handler", () => new PermanentJobError("template missing")],
    ["an error isPermanent classifies by status", () => new HttpStatusError(404)],
  ])("%s fails the job at once", async (_label, makeError) => {
    let calls = 0;
    const messageId = `msg_P${Math.random().toString(36).slice(2, 8)}`;
    workers.push(
      createWorker({
        queue: "delivery",
        redisUrl: REDIS_URL,
        prefix,
        isPermanent: (err) => err instanceof HttpStatusError && err.status < 500,
        processor: dispatchTo("delivery", {
          "deliver-messages": unusedHandler,
          "deliver-message": async () => {
            calls += 1;
            throw makeError();
          },
        }),
      }),
    );
    const id = await queues.enqueue("deliver-message", { messageId, generation: 1 });
    const job = await waitFor(async () => {
      const found = await queues.queue("delivery").getJob(id);
      return found?.finishedOn !== undefined && found;
    });
    expect(calls).toBe(1);
    expect(await job.getState()).toBe("failed");
    expect(job.attemptsMade).toBe(1);
  });

  it("dispatchTo refuses a registry missing a handler of the queue", () => {
    expect(() => dispatchTo("policy", {})).toThrow("queue policy: no handler for apply-policy");
  });
});

describe("retryDeadJobs", () => {
  it("re-queues dead jobs (attempts used up, or permanent) with fresh attempts and counts them per queue", async () => {
    await Promise.all(
      ["ingest", "delivery", "callbacks"].map((name) =>
        queues.queue(name as "ingest").obliterate({ force: true }),
      ),
    );
    let healthy = false;
    const done: string[] = [];
    const common = { redisUrl: REDIS_URL, prefix };
    workers.push(
      createWorker({
        ...common,
        queue: "ingest",
        processor: dispatchTo("ingest", {
          "ingest-events": unusedHandler,
          "ingest-event": async ({ eventId }) => {
            if (!healthy) throw new Error("database busy");
            done.push(eventId);
          },
        }),
      }),
      createWorker({
        ...common,
        queue: "callbacks",
        processor: dispatchTo("callbacks", {
          "send-callback": async ({ callbackId }) => {
            if (!healthy) throw new PermanentJobError("receiver gone");
            done.push(callbackId);
          },
        }),
      }),
    );
    await queues.enqueue("ingest-event", { eventId: "evt_R1" });
    await queues.enqueueBulk([
      { name: "send-callback", payload: { callbackId: "cbk_D1" } },
      { name: "send-callback", payload: { callbackId: "cbk_D2" } },
    ]);
    const ingest = queues.queue("ingest");
    await waitFor(async () => (await ingest.getJob("evt_R1"))?.attemptsMade === 1);
    await (await ingest.getJob("evt_R1"))!.promote().catch(() => undefined);
    await waitFor(
      async () =>
        (await ingest.getFailedCount()) === 1 && (await queues.queue("callbacks").getFailedCount()) === 2,
    );
    expect((await ingest.getJob("evt_R1"))!.attemptsMade).toBe(2);

    healthy = true;
    expect(await retryDeadJobs(queues)).toEqual({
      ingest: 1,
      policy: 0,
      delivery: 0,
      digests: 0,
      screening: 0,
      callbacks: 2,
      webhooks: 0,
      broadcasts: 0,
    });
    await waitFor(async () => done.length === 3);
    expect(done.sort()).toEqual(["cbk_D1", "cbk_D2", "evt_R1"]);
    const retried = await ingest.getJob("evt_R1");
    expect(await retried!.getState()).toBe("completed");
    expect(retried!.attemptsMade).toBe(1);
    expect(await retryDeadJobs(queues, { queue: "callbacks" })).toEqual({ callbacks: 0 });
  });
});
