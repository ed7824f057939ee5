import { Client } from "pg";
import { createQueues, type Queues } from "@svc/queue";
import {
  REDIS_URL,
  createScratchDatabase,
  dropPrefix,
  scratchName,
  startEffectWorker,
  stopChild,
  waitFor,
  type ChildWorker,
} from "./harness";

const prefix = scratchName("svc-test-shutdown");
let db: { url: string; drop: () => Promise<void> };
let queues: Queues;
let pg: Client;
let child: ChildWorker | undefined;

const startWorker = (holdMs: string) =>
  startEffectWorker({
    WORKER_NAME: "only",
    HOLD_AT: "before-commit",
    HOLD_MS: holdMs,
    LOCK_MS: "30000",
    PREFIX: prefix,
    DATABASE_URL: db.url,
  });

beforeAll(async () => {
  db = await createScratchDatabase();
  pg = new Client({ connectionString: db.url });
  await pg.connect();
  queues = createQueues({ redisUrl: REDIS_URL, prefix });
  await queues.ready();
});
afterEach(async () => {
  await stopChild(child);
  child = undefined;
});
afterAll(async () => {
  await queues.close();
  await pg.end();
  await db.drop();
  await dropPrefix(prefix);
});

const effects = async (jobId: string) =>
  (await pg.query("SELECT worker FROM effects WHERE job_id = $1", [jobId])).rows as { worker: string }[];

describe("worker process shutdown", () => {
  it("SIGTERM while a job runs lets it finish, then the process exits 0", async () => {
    child = startWorker("1500");
    await queues.enqueue("ingest-event", { eventId: "evt_G1" });
    await child.line(/^begin evt_G1$/);
    const signalledAt = Date.now();
    child.process.kill("SIGTERM");
    expect(await child.exited).toEqual({ code: 0, signal: null });
    // It waited for the job (held ~1.5 s inside the transaction) rather than dropping it.
    expect(Date.now() - signalledAt).toBeGreaterThan(1_000);
    expect(child.lines).toEqual(["ready", "begin evt_G1", "committed evt_G1", "end evt_G1"]);
    expect(await effects("evt_G1")).toEqual([{ worker: "only" }]);
    await waitFor(async () => (await queues.queue("ingest").getJobState("evt_G1")) === "completed");
  });

  it("a second signal exits at once without finishing the job; nothing is committed", async () => {
    child = startWorker("60000");
    await queues.enqueue("ingest-event", { eventId: "evt_G2" });
    await child.line(/^begin evt_G2$/);
    const signalledAt = Date.now();
    child.process.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.process.kill("SIGINT");
    expect(await child.exited).toEqual({ code: 1, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
    expect(await effects("evt_G2")).toEqual([]);
    // Still claimed: the stalled checker hands it to another worker once the lock runs out.
    expect(await queues.queue("ingest").getJobState("evt_G2")).toBe("active");
  });
});
