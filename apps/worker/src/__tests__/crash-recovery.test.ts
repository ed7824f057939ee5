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

// A worker SIGKILLed mid-job leaves the job active with a lock nobody renews; once the lock runs
// out another worker's stalled checker moves it back to wait and runs it. The effect is one
// Postgres transaction keyed by job id, so it happens exactly once either way.

const LOCK_MS = "1000";
const prefix = scratchName("svc-test-crash");
let db: { url: string; drop: () => Promise<void> };
let queues: Queues;
let pg: Client;
const children: ChildWorker[] = [];

const worker = (name: string, holdAt: string, holdMs: string) => {
  const child = startEffectWorker({
    WORKER_NAME: name,
    HOLD_AT: holdAt,
    HOLD_MS: holdMs,
    LOCK_MS,
    PREFIX: prefix,
    DATABASE_URL: db.url,
  });
  children.push(child);
  return child;
};

beforeAll(async () => {
  db = await createScratchDatabase();
  pg = new Client({ connectionString: db.url });
  await pg.connect();
  queues = createQueues({ redisUrl: REDIS_URL, prefix });
  await queues.ready();
});
afterEach(async () => {
  await Promise.all(children.splice(0).map(stopChild));
});
afterAll(async () => {
  await queues.close();
  await pg.end();
  await db.drop();
  await dropPrefix(prefix);
});

describe("a worker killed with SIGKILL mid-job", () => {
  it.each([
    // Killed inside the transaction: nothing was committed, the second worker writes the effect.
    ["before its commit", "before-commit", /^begin evt_K1$/, "evt_K1", "second"],
    // Killed after the commit but before BullMQ heard back: the rerun finds the effect and adds nothing.
    ["after its commit", "after-commit", /^committed evt_K2$/, "evt_K2", "first"],
  ])(
    "%s: another worker takes the job over and the effect happens once",
    async (_label, holdAt, killAt, eventId, effectBy) => {
      const first = worker("first", holdAt, "60000");
      await queues.enqueue("ingest-event", { eventId });
      await first.line(killAt);
      first.process.kill("SIGKILL");
      expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
      const ingest = queues.queue("ingest");
      expect(await ingest.getJobState(eventId)).toBe("active");

      const second = worker("second", "before-commit", "0");
      await second.line(new RegExp(`^end ${eventId}$`), 20_000);
      await waitFor(async () => (await ingest.getJobState(eventId)) === "completed");
      expect((await ingest.getJob(eventId))!.stalledCounter).toBe(1);
      const effects = await pg.query("SELECT job_id, worker FROM effects WHERE job_id = $1", [eventId]);
      expect(effects.rows).toEqual([{ job_id: eventId, worker: effectBy }]);
      expect((await pg.query("SELECT job_id FROM done WHERE job_id = $1", [eventId])).rowCount).toBe(1);
      expect(second.lines).toContain(`begin ${eventId}`);
      expect(first.lines).not.toContain(`end ${eventId}`);
    },
  );
});
