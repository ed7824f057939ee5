import {
  createQueues,
  createWorker,
  dispatchTo,
  PermanentJobError,
  sweepHandler,
  type Queues,
} from "@svc/queue";
import { reportDeadJobsSweep } from "../report-dead-jobs";
import { REDIS_URL, dropPrefix, scratchName, waitFor } from "./harness";

const prefix = scratchName("svc-test-report");
let queues: Queues;

beforeAll(async () => {
  queues = createQueues({ redisUrl: REDIS_URL, prefix });
  await queues.ready();
});
afterAll(async () => {
  await queues.close();
  await dropPrefix(prefix);
});

describe("report-dead-jobs sweep", () => {
  it("counts dead jobs per queue and warns only when there are some", async () => {
    const warnings: unknown[] = [];
    const logger = {
      info: () => undefined,
      warn: (...args: unknown[]) => warnings.push(args),
      error: () => undefined,
    };
    const sweeps = [reportDeadJobsSweep({ queues, logger })];
    const handlers = { sweep: sweepHandler(sweeps) };
    expect(sweeps.map((s) => [s.name, s.every])).toEqual([["report-dead-jobs", 300_000]]);
    const run = () =>
      handlers.sweep!(
        { sweep: "report-dead-jobs" },
        { id: "t", name: "sweep", queue: "scheduler", attemptsMade: 0, attempts: 1 },
      );

    expect(await run()).toEqual({ dead: {} });
    expect(warnings).toEqual([]);

    const worker = createWorker({
      queue: "digests",
      redisUrl: REDIS_URL,
      prefix,
      processor: dispatchTo("digests", {
        "close-digest": async () => {
          throw new PermanentJobError("digest rule deleted");
        },
      }),
    });
    await queues.enqueueBulk([
      { name: "close-digest", payload: { digestId: "dig_R1" } },
      { name: "close-digest", payload: { digestId: "dig_R2" } },
    ]);
    await waitFor(async () => (await queues.queue("digests").getFailedCount()) === 2);
    await worker.close();

    expect(await run()).toEqual({ dead: { digests: 2 } });
    expect(warnings).toEqual([["dead jobs waiting for retry-dead", { dead: { digests: 2 } }]]);
  });
});
