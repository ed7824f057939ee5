import { createQueues, type Queues } from "../producers";
import { requeueStuck } from "../sweeper";
import { REDIS_URL, dropPrefix, scratchPrefix } from "./redis-scratch";

const prefix = scratchPrefix("sweeper");
let queues: Queues;

beforeAll(async () => {
  queues = createQueues({ redisUrl: REDIS_URL, prefix });
  await queues.ready();
});
afterAll(async () => {
  await queues.close();
  await dropPrefix(prefix);
});

describe("requeueStuck", () => {
  it("recreates lost jobs and leaves existing ones alone, however often it runs", async () => {
    // evt_S1 was enqueued by the API; evt_S2 and evt_S3 were committed but never reached Redis.
    await queues.enqueue("ingest-event", { eventId: "evt_S1" }, { delay: 60_000 });
    const stuck = [
      { eventId: "evt_S1" },
      { eventId: "evt_S2" },
      { eventId: "evt_S3" },
      { eventId: "evt_S2" },
    ];
    const limits: number[] = [];
    const list = async (limit: number) => {
      limits.push(limit);
      return stuck.slice(0, limit);
    };
    const first = await requeueStuck({ queues, job: "ingest-event", list, limit: 10 });
    const second = await requeueStuck({ queues, job: "ingest-event", list, limit: 10 });
    expect(first).toEqual({ found: 3, jobIds: ["evt_S1", "evt_S2", "evt_S3"] });
    expect(second).toEqual(first);
    expect(limits).toEqual([10, 10]);
    const ingest = queues.queue("ingest");
    expect(await ingest.getJobCounts("waiting", "delayed")).toEqual({ waiting: 2, delayed: 1 });
    // The existing job kept its own schedule: the sweep did not make it run early.
    expect(await (await ingest.getJob("evt_S1"))!.getState()).toBe("delayed");
  });

  it("enqueues under the job's own ids when given, deduplicated by them", async () => {
    const list = async () => [{ digestId: "dig_J1" }, { digestId: "dig_J2" }, { digestId: "dig_J1" }];
    const jobId = ({ digestId }: { digestId: string }) => `${digestId}-due`;
    const result = await requeueStuck({ queues, job: "close-digest", list, jobId });
    expect(result).toEqual({ found: 2, jobIds: ["dig_J1-due", "dig_J2-due"] });
    const digests = queues.queue("digests");
    expect((await digests.getJob("dig_J1-due"))?.data).toEqual({ digestId: "dig_J1" });
    expect(await digests.getJob("dig_J1")).toBeUndefined();
    await digests.obliterate({ force: true });
  });

  it("does nothing when nothing is stuck", async () => {
    expect(await requeueStuck({ queues, job: "close-digest", list: async () => [] })).toEqual({
      found: 0,
      jobIds: [],
    });
    expect(await queues.queue("digests").count()).toBe(0);
  });
});
