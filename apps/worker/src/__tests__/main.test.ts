import { spawn } from "node:child_process";
import path from "node:path";
import { createQueues, type Queues } from "@svc/queue";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { REDIS_URL, dropPrefix, scratchName, waitFor } from "./harness";

// The real entry point as a child process: config from the environment, `--queues` selection,
// scheduler registration, and a clean exit on SIGTERM.

const MAIN = path.join(__dirname, "..", "main.ts");
const REGISTER = path.join(__dirname, "../../../../scripts/register-ts.cjs");
const prefix = scratchName("svc-test-main");
let queues: Queues;
// Its own empty database (the worker migrates it at start), never the shared default `svc` one.
let database: TestDatabase;

function runMain(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["-r", REGISTER, MAIN, ...args], {
    env: {
      PATH: process.env.PATH,
      REDIS_URL,
      DATABASE_URL: database.databaseUrl,
      SVC__REDIS__PREFIX: prefix,
      SVC__LOG__LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

beforeAll(async () => {
  database = await createTestDatabase("worker_main", { migrate: false });
  queues = createQueues({ redisUrl: REDIS_URL, prefix });
  await queues.ready();
});
afterAll(async () => {
  await queues.close();
  await dropPrefix(prefix);
  await database?.drop();
});

describe("worker main", () => {
  it("--queues scheduler registers the sweeps under the configured prefix and exits 0 on SIGTERM", async () => {
    const run = runMain(["--queues", "scheduler"]);
    try {
      const schedulers = await waitFor(async () => {
        const found = await queues.queue("scheduler").getJobSchedulers();
        return found.length >= 12 && found;
      }, 15_000);
      expect(schedulers.map((s) => [s.key, s.every]).sort()).toEqual([
        ["sweep-advance-broadcasts", 15_000],
        // On by default: retention.webhooks_days is 30 (docs/operations.md "Data retention").
        ["sweep-apply-retention", 60_000],
        ["sweep-close-due-digests", 15_000],
        ["sweep-expire-held-items", 30_000],
        ["sweep-expire-queued", 30_000],
        ["sweep-reclaim-leases", 10_000],
        ["sweep-report-dead-jobs", 300_000],
        ["sweep-requeue-callbacks", 15_000],
        ["sweep-requeue-due", 10_000],
        ["sweep-requeue-pending-events", 10_000],
        ["sweep-requeue-screening", 10_000],
        ["sweep-requeue-webhooks", 10_000],
      ]);
      run.child.kill("SIGTERM");
      expect(await run.exited).toBe(0);
    } finally {
      run.child.kill("SIGKILL");
    }
  });

  it("re-asserts the job schedulers after Redis lost them (restarted without its data)", async () => {
    const run = runMain(["--queues", "scheduler"], { SVC__WORKER__SWEEP_SECONDS: "1" });
    try {
      const scheduler = queues.queue("scheduler");
      await waitFor(async () => (await scheduler.getJobSchedulers()).length >= 9, 15_000);
      // A scheduler the worker does not own: gone for good after the drop, which shows the drop
      // happened even when the worker's re-assertion (every second here) lands right after it.
      await scheduler.upsertJobScheduler(
        "canary",
        { every: 3_600_000 },
        { name: "sweep", data: { sweep: "canary" } },
      );
      await dropPrefix(prefix); // what a Redis restarted empty leaves: no schedulers, no jobs
      // Registered again one by one: wait for the whole set, not the first nine.
      const back = await waitFor(async () => {
        const keys = (await scheduler.getJobSchedulers()).map((s) => s.key);
        return keys.includes("sweep-requeue-pending-events") && keys.length >= 9 && keys;
      }, 5_000);
      expect(back).not.toContain("canary");
      run.child.kill("SIGTERM");
      expect(await run.exited).toBe(0);
    } finally {
      run.child.kill("SIGKILL");
    }
  });

  it("an unknown queue name stops the start with exit 1 and says which", async () => {
    const run = runMain(["--queues", "ingest,emails"]);
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain("unknown queue emails");
  });

  it("a callback URL without SVC_CALLBACK_SECRET stops the start with exit 1 naming the variable", async () => {
    const run = runMain(["--queues", "callbacks"], {
      SVC__APPROVALS__CALLBACK_URL: "https://backend.example/decisions",
      SVC__DATABASE__AUTO_MIGRATE: "false",
    });
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain(
      "invalid configuration: approvals.callback_url: requires SVC_CALLBACK_SECRET to sign callbacks",
    );
  });
});
