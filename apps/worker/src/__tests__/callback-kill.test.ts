import { parseConfig } from "@svc/config";
import { callbackJob, recordDecisionCallback } from "@svc/engine";
import { createQueues, type Queues } from "@svc/queue";
import { $transaction } from "@svc/store";
import {
  CallbackReceiver,
  createTestDatabase,
  testRedisPrefix,
  type TestDatabase,
  type TestRedisPrefix,
} from "@svc/testkit";
import { startFixture, stopChild, waitFor, type ChildWorker } from "./harness";

// docs/approvals.md "Retries": a worker SIGKILLed while the receiver holds its POST leaves the
// callback claimed; once the claim's lease runs out, the requeue-callbacks sweep of another worker
// hands it to a new try. The receiver sees the POST twice with the same body and Idempotency-Key
// (at least once), and the row ends delivered after one recorded try.

const SECRET = "callback-kill-secret";
let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
let receiver: CallbackReceiver;
const children: ChildWorker[] = [];

const spawnWorker = () => {
  const child = startFixture("callback-worker.ts", {
    DATABASE_URL: db.databaseUrl,
    REDIS_URL: redis.redisUrl,
    PREFIX: redis.prefix,
    CALLBACK_URL: receiver.url,
    SVC_CALLBACK_SECRET: SECRET,
    LOCK_MS: "1000",
    LEASE_MS: "2000",
    SWEEP_MS: "500",
  });
  children.push(child);
  return child;
};

beforeAll(async () => {
  db = await createTestDatabase("callback_kill");
  redis = testRedisPrefix("callback-kill");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  await queues.ready();
  receiver = await new CallbackReceiver(SECRET).start();
});
afterAll(async () => {
  await Promise.all(children.map(stopChild));
  await queues.close();
  await receiver.close();
  await redis.cleanup();
  await db.drop();
});

test("a worker killed mid-send: another worker sends the callback again, same body and key, once recorded", async () => {
  const first = spawnWorker();
  await first.line(/^ready$/, 60_000);
  receiver.delayMs = 60_000; // the first POST is never answered: the worker dies waiting
  const config = parseConfig({ approvals: { callback_url: receiver.url } }, {});
  const id = await $transaction(db.prisma, (tx) =>
    recordDecisionCallback(
      tx,
      { config, now: () => new Date() },
      {
        type: "approval.decided",
        kind: "message",
        id: "msg_KILLED",
        status: "approved",
        title: "Weekly report",
        agent: "report-bot",
        decided_by: "ops",
        comment: null,
        decided_at: new Date().toISOString(),
        metadata: {},
      },
    ),
  );
  await queues.enqueueBulk([callbackJob(id!)]);

  await waitFor(async () => receiver.posts.length === 1, 15_000);
  first.process.kill("SIGKILL");
  expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
  const killedAt = Date.now();
  expect(await db.prisma.callbackDelivery.findUniqueOrThrow({ where: { id: id! } })).toMatchObject({
    status: "pending",
    attempts: 0,
  });

  receiver.delayMs = 0;
  const second = spawnWorker();
  await second.line(/^ready$/, 60_000);
  const row = await waitFor(async () => {
    const r = await db.prisma.callbackDelivery.findUniqueOrThrow({ where: { id: id! } });
    return r.status === "delivered" && r;
  }, 30_000);
  expect(row).toMatchObject({ attempts: 1, last_error: null });
  expect(Date.now() - killedAt).toBeLessThan(60_000);

  const [lost, resent] = receiver.posts;
  expect(receiver.posts).toHaveLength(2);
  expect(resent!.raw.equals(lost!.raw)).toBe(true);
  expect([lost!.headers["idempotency-key"], resent!.headers["idempotency-key"]]).toEqual([id, id]);
  expect([lost!.verified, resent!.verified]).toEqual([true, true]);
}, 120_000);
