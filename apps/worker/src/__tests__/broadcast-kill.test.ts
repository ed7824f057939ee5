import { newId } from "@svc/core";
import { actOnBroadcast, createBroadcast } from "@svc/engine";
import { createLogger } from "@svc/log";
import { createQueues, type Queues } from "@svc/queue";
import { createTestDatabase, testRedisPrefix, type TestDatabase, type TestRedisPrefix } from "@svc/testkit";
import { startFixture, startWarmWorker, stopChild, waitFor, type ChildWorker } from "./harness";

// docs/broadcasts.md "Crashes": a worker SIGKILLed in the middle of a broadcast and a new one
// started: the broadcast completes and every recipient has exactly one message. The killed
// worker's chunk jobs come back through BullMQ's stalled-job check; the chunk's saved resume point
// and the dedup key `brd:<broadcast>:<recipient>` keep the batch it was composing from repeating.

const PEOPLE = 800;
const SECRET_KEY = "s".repeat(48);

let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
const children: ChildWorker[] = [];

const spawnWorker = () => {
  const child = startFixture("drain-worker.ts", {
    START_ON_SIGNAL: "1",
    // ingest and delivery together: chunks deliver their messages inline, so the kill also cuts those short.
    QUEUES: "ingest,broadcasts,delivery,scheduler",
    DATABASE_URL: db.databaseUrl,
    REDIS_URL: redis.redisUrl,
    PREFIX: redis.prefix,
    SVC_SECRET_KEY: SECRET_KEY,
    LOCK_MS: "1000",
    LEASE_SECONDS: "3",
    SWEEP_MS: "500",
  });
  children.push(child);
  return child;
};

beforeAll(async () => {
  db = await createTestDatabase("broadcast_kill");
  redis = testRedisPrefix("broadcast-kill");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  await queues.ready();
  await db.prisma.template.create({
    data: { key: "news", locales: { en: { title: "News", body: "Hello" } } },
  });
  const people = Array.from({ length: PEOPLE }, (_, i) => ({ id: newId("recipient"), external_id: `k${i}` }));
  await db.prisma.recipient.createMany({ data: people });
  await db.prisma.address.createMany({
    data: people.map((p) => ({ recipient_id: p.id, channel: "hook", value: `device-${p.external_id}` })),
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(children.map(stopChild));
  await queues?.close();
  await db?.drop();
  await redis?.cleanup();
});

test("a worker SIGKILLed mid-broadcast, then a new one: every recipient gets exactly one message", async () => {
  const first = spawnWorker();
  const second = spawnWorker(); // compiles meanwhile, takes no job before its signal
  const deps = {
    prisma: db.prisma,
    queues,
    now: () => new Date(),
    logger: createLogger({ service: "broadcast-kill-test", level: "error" }),
  };
  const created = await createBroadcast(
    deps,
    { keyId: "key_test", keyName: "t", scopes: ["admin"], agentKey: null },
    {
      name: "kill",
      template: "news",
      category: "transactional",
      channels: ["hook"],
      audience: { recipients: Array.from({ length: PEOPLE }, (_, i) => `k${i}`) },
      rate_per_second: 150,
    },
  );
  await startWarmWorker(first);
  await actOnBroadcast(deps, created.id, "start");
  const composed = () => db.prisma.message.count({ where: { broadcast_id: created.id } });
  await waitFor(async () => (await composed()) >= 200, 60_000);
  first.process.kill("SIGKILL");
  expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
  const atKill = await composed();
  expect(atKill).toBeLessThan(PEOPLE);

  await startWarmWorker(second);
  await waitFor(async () => {
    const row = await db.prisma.broadcast.findUniqueOrThrow({ where: { id: created.id } });
    return row.status === "completed";
  }, 90_000);
  const perPerson = await db.prisma.message.groupBy({
    by: ["recipient_external_id"],
    where: { broadcast_id: created.id },
    _count: { _all: true },
  });
  expect(perPerson).toHaveLength(PEOPLE);
  expect(perPerson.filter((p) => p._count._all !== 1)).toEqual([]);
  await waitFor(
    async () =>
      (await db.prisma.message.count({ where: { broadcast_id: created.id, status: "sent" } })) === PEOPLE,
    30_000,
  );
}, 180_000);
