import type { Worker } from "bullmq";
import { createQueues, type Queues } from "../producers";
import { createWorker, dispatchTo } from "../worker";
import { registerSchedules, sweepHandler, type Sweep } from "../schedules";
import { REDIS_URL, dropPrefix, scratchPrefix, waitFor } from "./redis-scratch";

const prefix = scratchPrefix("schedules");
let queues: Queues;
let worker: Worker | undefined;

beforeAll(async () => {
  queues = createQueues({ redisUrl: REDIS_URL, prefix });
  await queues.ready();
});
afterEach(async () => {
  await worker?.close();
  worker = undefined;
  await queues.queue("scheduler").obliterate({ force: true });
});
afterAll(async () => {
  await queues.close();
  await dropPrefix(prefix);
});

describe("registerSchedules", () => {
  it("registering the same sweeps twice leaves one scheduler and one pending job per sweep", async () => {
    const sweeps = [
      { name: "pending-events", every: 60_000 },
      { name: "expired-leases", every: 30_000 },
    ];
    const first = await registerSchedules(queues, sweeps);
    const second = await registerSchedules(queues, sweeps);
    expect(first).toEqual({ registered: ["sweep-pending-events", "sweep-expired-leases"], removed: [] });
    expect(second).toEqual(first);
    const scheduler = queues.queue("scheduler");
    const schedulers = await scheduler.getJobSchedulers(0, -1, true);
    expect(schedulers.map((s) => [s.key, s.every, s.name]).sort()).toEqual([
      ["sweep-expired-leases", 30_000, "sweep"],
      ["sweep-pending-events", 60_000, "sweep"],
    ]);
    expect(await scheduler.getJobCountByTypes("delayed", "waiting")).toBe(2);
  });

  it("prunes the schedulers of sweeps that are no longer listed", async () => {
    await registerSchedules(queues, [
      { name: "old-sweep", every: 60_000 },
      { name: "kept", every: 60_000 },
    ]);
    const result = await registerSchedules(queues, [{ name: "kept", every: 60_000 }]);
    expect(result).toEqual({ registered: ["sweep-kept"], removed: ["sweep-old-sweep"] });
    expect((await queues.queue("scheduler").getJobSchedulers()).map((s) => s.key)).toEqual(["sweep-kept"]);
  });

  it.each([
    [{ name: "Bad Name", every: 1000 }, 'sweep name "Bad Name" is invalid'],
    [{ name: "a:b", every: 1000 }, 'sweep name "a:b" is invalid'],
    [{ name: "ok", every: 0 }, "sweep ok: every must be > 0"],
  ])("rejects %j", async (sweep, message) => {
    await expect(registerSchedules(queues, [sweep])).rejects.toThrow(message);
  });

  it("sweeps run on their interval, one job at a time, registered twice or not", async () => {
    const runs: { sweep: string; at: number }[] = [];
    const sweeps: Sweep[] = [
      {
        name: "requeue-due",
        every: 300,
        run: async ({ sweep }) => {
          runs.push({ sweep, at: Date.now() });
          return { found: 0 };
        },
      },
    ];
    await registerSchedules(queues, sweeps);
    await registerSchedules(queues, sweeps);
    const handlers = { sweep: sweepHandler(sweeps) };
    worker = createWorker({
      queue: "scheduler",
      processor: dispatchTo("scheduler", handlers),
      redisUrl: REDIS_URL,
      prefix,
    });
    await waitFor(async () => runs.length >= 4, 5_000);
    await worker.close();
    const gaps = runs.slice(1).map((run, i) => run.at - runs[i]!.at);
    // Two registrations would double the rate (gaps near 0); one scheduler keeps about 300 ms.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(200);
    expect(runs.every((run) => run.sweep === "requeue-due")).toBe(true);
    const completed = await queues.queue("scheduler").getCompleted();
    expect(completed[0]?.returnvalue).toEqual({ found: 0 });
  });

  it("a job of a retired sweep is skipped, not failed", async () => {
    const handler = sweepHandler([]);
    await expect(
      handler(
        { sweep: "gone" },
        { id: "x", name: "sweep", queue: "scheduler", attemptsMade: 0, attempts: 1 },
      ),
    ).resolves.toEqual({
      skipped: "unknown sweep",
    });
  });
});
