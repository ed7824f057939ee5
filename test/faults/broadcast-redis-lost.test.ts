import { setTimeout as sleep } from "node:timers/promises";
import { newId } from "@svc/core";
import { actOnBroadcast, createBroadcast } from "@svc/engine";
import { createLogger } from "@svc/log";
import { createQueues, type Queues } from "@svc/queue";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { startOwnRedis, type OwnRedis } from "../../bench/lib/faults/redis-server";
import { WebhookSink } from "../../bench/lib/faults/sink";
import { freePort, startWorker, writeConfig, type SvcProcess } from "../../bench/lib/faults/svc-processes";

// docs/broadcasts.md "Crashes" and docs/operations.md "Recovery guarantees": Redis restarted
// without its data in the middle of a broadcast loses its chunk jobs, its throttle bucket and the
// job schedulers. svc's own worker process (no restart) re-asserts the schedulers, the
// `advance-broadcasts` sweep plans the running broadcast again, and its chunks go on from their
// saved resume points: the broadcast completes within a minute of Redis coming back, and every
// recipient gets exactly one message, sent once.

const PEOPLE = 800;

let redis: OwnRedis;
let db: TestDatabase;
let sink: WebhookSink;
let queues: Queues | undefined;
let worker: SvcProcess | undefined;

beforeAll(async () => {
  redis = await startOwnRedis(await freePort(), { appendonly: false });
  db = await createTestDatabase("broadcast_redis_lost");
  sink = new WebhookSink();
  await sink.start();
  await db.prisma.template.create({
    data: { key: "news", locales: { en: { title: "News", body: "Hello" } } },
  });
  const people = Array.from({ length: PEOPLE }, (_, i) => ({ id: newId("recipient"), external_id: `r${i}` }));
  await db.prisma.recipient.createMany({ data: people });
  await db.prisma.address.createMany({
    data: people.map((p) => ({ recipient_id: p.id, channel: "hook", value: `device-${p.external_id}` })),
  });
}, 60_000);

afterAll(async () => {
  await worker?.kill();
  await queues?.close();
  await sink?.close();
  await redis?.stop();
  await db?.drop();
});

test("Redis restarted empty mid-broadcast: it completes within a minute, one message per person, each sent once", async () => {
  const prefix = `brd_lost_${Date.now()}`;
  const configFile = writeConfig({
    database: { url: db.databaseUrl },
    redis: { url: redis.url },
    prefix,
    sinkUrl: sink.url,
    settings: { lease_seconds: 30, sweep_seconds: 1, lock_ms: 5_000 },
  });
  worker = await startWorker("worker", configFile, ["broadcasts", "delivery", "scheduler"]);
  queues = createQueues({ redisUrl: redis.url, prefix });
  await queues.ready();
  const deps = {
    prisma: db.prisma,
    queues,
    now: () => new Date(),
    logger: createLogger({ service: "broadcast-redis-test", level: "error" }),
  };
  const created = await createBroadcast(
    deps,
    { keyId: "key_test", keyName: "t", scopes: ["admin"], agentKey: null },
    {
      name: "redis lost",
      template: "news",
      category: "transactional",
      channels: ["hook"],
      audience: { recipients: Array.from({ length: PEOPLE }, (_, i) => `r${i}`) },
      rate_per_second: 100,
    },
  );
  await actOnBroadcast(deps, created.id, "start");
  const composed = () => db.prisma.message.count({ where: { broadcast_id: created.id } });
  while ((await composed()) < 200) await sleep(50);

  await redis.kill();
  await sleep(2_000);
  await redis.start();
  const back = Date.now();
  expect(await composed()).toBeLessThan(PEOPLE);

  let completedAt: number | null = null;
  while (Date.now() - back < 60_000) {
    const row = await db.prisma.broadcast.findUniqueOrThrow({ where: { id: created.id } });
    const sent = await db.prisma.message.count({ where: { broadcast_id: created.id, status: "sent" } });
    if (row.status === "completed" && sent === PEOPLE) {
      completedAt = Date.now();
      break;
    }
    await sleep(250);
  }
  const perPerson = await db.prisma.message.groupBy({
    by: ["recipient_external_id"],
    where: { broadcast_id: created.id },
    _count: { _all: true },
  });
  expect({ people: perPerson.length, notOne: perPerson.filter((p) => p._count._all !== 1) }).toEqual({
    people: PEOPLE,
    notOne: [],
  });
  expect(completedAt).not.toBeNull();
  // No process died, so no send was repeated.
  expect(sink.received.size).toBe(PEOPLE);
  expect(sink.repeated().size).toBe(0);
}, 150_000);
