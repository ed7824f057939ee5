import { parseConfig } from "@svc/config";
import { callbackTryJobId, recordDecisionCallback, sendCallbackJob } from "@svc/engine";
import { createQueues, createWorker, dispatchTo, type Queues } from "@svc/queue";
import { $transaction } from "@svc/store";
import {
  CallbackReceiver,
  createTestDatabase,
  testRedisPrefix,
  waitFor,
  type TestDatabase,
  type TestRedisPrefix,
} from "@svc/testkit";
import { svcctl } from "./harness";

// `svcctl callbacks list|retry` against real Postgres and Redis (own database and prefix); the
// retried callback is then delivered by a real worker to a receiver that checks its signature.

const SECRET = "svcctl-callback-secret";
let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
let receiver: CallbackReceiver;
let env: Record<string, string>;
const ids: Record<"failed" | "delivered" | "pending", string> = { failed: "", delivered: "", pending: "" };

async function record(subject: string, status: "failed" | "delivered" | "pending"): Promise<string> {
  const config = parseConfig({ approvals: { callback_url: receiver.url } }, {});
  const id = await $transaction(db.prisma, (tx) =>
    recordDecisionCallback(
      tx,
      { config, now: () => new Date() },
      {
        type: "approval.decided",
        kind: "action",
        id: subject,
        status: "approved",
        title: "Deploy to production",
        agent: "deploy-bot",
        decided_by: "link:ann",
        comment: null,
        decided_at: new Date().toISOString(),
        metadata: { change: 42 },
      },
    ),
  );
  const settled = {
    failed: { status: "failed" as const, attempts: 10, last_error: "callback 503", next_attempt_at: null },
    delivered: { status: "delivered" as const, attempts: 1, delivered_at: new Date(), next_attempt_at: null },
    pending: { next_attempt_at: new Date(Date.now() + 3_600_000) },
  }[status];
  await db.prisma.callbackDelivery.update({ where: { id: id! }, data: settled });
  return id!;
}

beforeAll(async () => {
  db = await createTestDatabase("svcctl_callbacks");
  redis = testRedisPrefix("svcctl_callbacks");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  await queues.ready();
  receiver = await new CallbackReceiver(SECRET).start();
  env = { DATABASE_URL: db.databaseUrl, REDIS_URL: redis.redisUrl, SVC__REDIS__PREFIX: redis.prefix };
  ids.failed = await record("apr_FAILED", "failed");
  ids.delivered = await record("apr_DELIVERED", "delivered");
  ids.pending = await record("apr_PENDING", "pending");
});
afterAll(async () => {
  await queues.close();
  await receiver.close();
  await redis.cleanup();
  await db.drop();
});

describe("svcctl callbacks list", () => {
  it("--json prints the page, newest first; --status failed only the failed ones", async () => {
    const all = await svcctl(["callbacks", "list", "--json"], env);
    expect(all.code).toBe(0);
    const page = JSON.parse(all.stdout) as { items: { id: string }[]; next_cursor: string | null };
    expect(page.items.map((c) => c.id)).toEqual([ids.pending, ids.delivered, ids.failed]);
    expect(page.next_cursor).toBeNull();

    const failed = await svcctl(["callbacks", "list", "--status", "failed", "--json"], env);
    expect(JSON.parse(failed.stdout)).toEqual({
      items: [
        {
          id: ids.failed,
          kind: "approval.decided",
          subject_id: "apr_FAILED",
          status: "failed",
          attempts: 10,
          last_error: "callback 503",
          next_attempt_at: null,
          created_at: expect.any(String),
          delivered_at: null,
          body: expect.objectContaining({ id: "apr_FAILED", metadata: { change: 42 } }),
        },
      ],
      next_cursor: null,
    });
  });

  it("prints a table, and says so when nothing matches", async () => {
    const run = await svcctl(["callbacks", "list", "--status", "failed"], env);
    expect(run.code).toBe(0);
    const [header, line] = run.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^ID\s+SUBJECT\s+STATUS\s+ATTEMPTS\s+NEXT TRY\s+CREATED\s+LAST ERROR$/);
    expect(line).toMatch(
      new RegExp(`^${ids.failed}\\s+apr_FAILED\\s+failed\\s+10\\s+-\\s+\\S+\\s+callback 503$`),
    );
    const paged = await svcctl(["callbacks", "list", "--limit", "1"], env);
    expect(paged.stderr).toMatch(/^more callbacks: svcctl callbacks list --cursor \S+\n$/);
  });

  it("--help shows an example", async () => {
    const run = await svcctl(["callbacks", "list", "--help"], {});
    expect(run.stdout).toContain("$ svcctl callbacks list --status failed");
  });
});

describe("svcctl callbacks retry", () => {
  it("a failed callback: pending with a job due now, then delivered by a worker", async () => {
    const run = await svcctl(["callbacks", "retry", ids.failed, "--json"], env);
    expect(run.code).toBe(0);
    const retried = JSON.parse(run.stdout) as { status: string; attempts: number; next_attempt_at: string };
    expect(retried).toMatchObject({
      id: ids.failed,
      status: "pending",
      attempts: 0,
      last_error: "callback 503",
    });
    const jobId = callbackTryJobId(ids.failed, new Date(retried.next_attempt_at));
    expect(await queues.queue("callbacks").getJobState(jobId)).toBe("waiting");

    const config = parseConfig(
      { approvals: { callback_url: receiver.url } },
      { SVC_CALLBACK_SECRET: SECRET },
    );
    const worker = createWorker({
      queue: "callbacks",
      prefix: redis.prefix,
      redisUrl: redis.redisUrl,
      processor: dispatchTo("callbacks", {
        "send-callback": sendCallbackJob({
          prisma: db.prisma,
          config,
          queues,
          logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
          now: () => new Date(),
        }),
      }),
    });
    try {
      await waitFor(
        async () =>
          (await db.prisma.callbackDelivery.findUniqueOrThrow({ where: { id: ids.failed } })).status ===
          "delivered",
        { what: "retried callback delivered" },
      );
    } finally {
      await worker.close();
    }
    expect(receiver.posts.map((p) => [p.verified, p.headers["idempotency-key"]])).toEqual([
      [true, ids.failed],
    ]);
  });

  it("plain output names the callback and its subject", async () => {
    await db.prisma.callbackDelivery.update({
      where: { id: ids.delivered },
      data: { status: "failed", last_error: "callback 410" },
    });
    const run = await svcctl(["callbacks", "retry", ids.delivered], env);
    expect(run).toEqual({
      code: 0,
      stdout: `retrying ${ids.delivered} for apr_DELIVERED: pending, next try now (last error: callback 410)\n`,
      stderr: "",
    });
  });

  it("anything but failed exits 1 with the state; an unknown id exits 4", async () => {
    expect(await svcctl(["callbacks", "retry", ids.pending], env)).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: callback is pending; only failed callbacks can be retried\n",
    });
    expect(await svcctl(["callbacks", "retry", "cbk_UNKNOWN"], env)).toEqual({
      code: 4,
      stdout: "",
      stderr: "error: no callback 'cbk_UNKNOWN'\n",
    });
  });
});
