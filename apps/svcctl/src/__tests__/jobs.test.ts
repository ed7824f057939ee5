import { newId } from "@svc/core";
import { PermanentJobError, createQueues, createWorker, dispatchTo, type Queues } from "@svc/queue";
import {
  createTestDatabase,
  testRedisPrefix,
  waitFor,
  type TestDatabase,
  type TestRedisPrefix,
} from "@svc/testkit";
import { reopenGivenUpMessages } from "../reopen-given-up-messages";
import { svcctl } from "./harness";

// The ingest queue also runs `ingest-events`, which these tests never enqueue.
const unusedHandler = async (): Promise<never> => {
  throw new Error("not enqueued by this test");
};

// `svcctl jobs retry-dead` against real Redis (own prefix) and Postgres (own database).

const NOW = new Date("2026-06-01T10:00:00.000Z");
const now = () => NOW;
let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
let env: Record<string, string>;
let recipientId: string;

beforeAll(async () => {
  db = await createTestDatabase("svcctl_jobs");
  redis = testRedisPrefix("svcctl_jobs");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  await queues.ready();
  env = { DATABASE_URL: db.databaseUrl, REDIS_URL: redis.redisUrl, SVC__REDIS__PREFIX: redis.prefix };
  recipientId = newId("recipient");
  await db.prisma.recipient.create({ data: { id: recipientId, external_id: "ada" } });
});
afterAll(async () => {
  await queues.close();
  await redis.cleanup();
  await db.drop();
});
beforeEach(async () => {
  await Promise.all(
    ["ingest", "delivery"].map((name) => queues.queue(name as "ingest").obliterate({ force: true })),
  );
  await db.prisma.message.deleteMany();
});

async function message(status: "failed" | "queued" | "sent", statusReason: string | null, generation = 0) {
  const row = await db.prisma.message.create({
    data: {
      id: newId("message"),
      status,
      status_reason: statusReason,
      recipient_id: recipientId,
      recipient_external_id: "ada",
      sender: "backend",
      category: "transactional",
      importance: "normal",
      claimed_importance: "normal",
      channels: ["email"],
      send_at: new Date("2026-05-31T09:00:00.000Z"),
      link_nonce: "nonce",
      generation,
      lease_until: new Date("2026-05-31T09:05:00.000Z"),
    },
  });
  return row.id;
}

const messageState = (id: string) =>
  db.prisma.message.findUniqueOrThrow({
    where: { id },
    select: { status: true, status_reason: true, generation: true, lease_until: true },
  });

describe("svcctl jobs retry-dead", () => {
  it("re-queues a dead job with fresh attempts and prints the count per queue", async () => {
    const worker = createWorker({
      redisUrl: redis.redisUrl,
      prefix: redis.prefix,
      queue: "ingest",
      processor: dispatchTo("ingest", {
        "ingest-events": unusedHandler,
        "ingest-event": async () => {
          throw new PermanentJobError("database said no");
        },
      }),
    });
    await queues.enqueue("ingest-event", { eventId: "evt_DEAD1" });
    const ingest = queues.queue("ingest");
    await waitFor(async () => (await ingest.getJobState("evt_DEAD1")) === "failed", {
      what: "job evt_DEAD1 dies",
    });
    await worker.close();

    const run = await svcctl(["jobs", "retry-dead", "--queue", "ingest"], env, { now });
    // --queue ingest leaves messages alone: no reopen line.
    expect(run).toEqual({ code: 0, stdout: "QUEUE   RE-QUEUED\ningest  1\n", stderr: "" });
    const job = await ingest.getJob("evt_DEAD1");
    expect({ state: await job!.getState(), attemptsMade: job!.attemptsMade }).toEqual({
      state: "waiting",
      attemptsMade: 0,
    });
  });

  it("reopens messages that gave up: queued again under a new generation with a new delivery job", async () => {
    const gaveUp = await message("failed", "gave up: provider timeout after 3000 ms", 2);
    const untouched = [
      await message("failed", "template_error: no usable locale"),
      await message("failed", "email: 550 mailbox unavailable"),
      await message("sent", null),
      await message("queued", null),
    ];
    const before = await Promise.all(untouched.map(messageState));

    const run = await svcctl(["jobs", "retry-dead", "--json"], env, { now });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      dead_jobs: {
        ingest: 0,
        policy: 0,
        delivery: 0,
        digests: 0,
        screening: 0,
        callbacks: 0,
        webhooks: 0,
        broadcasts: 0,
      },
      reopened_messages: 1,
    });
    expect(await messageState(gaveUp)).toEqual({
      status: "queued",
      status_reason: null,
      generation: 3,
      lease_until: null,
    });
    expect(await db.prisma.message.findUniqueOrThrow({ where: { id: gaveUp } })).toMatchObject({
      updated_at: NOW,
    });
    expect(await Promise.all(untouched.map(messageState))).toEqual(before);

    const delivery = queues.queue("delivery");
    const job = await delivery.getJob(`${gaveUp}-3`);
    expect({ name: job?.name, data: job?.data, state: await job?.getState() }).toEqual({
      name: "deliver-message",
      data: { messageId: gaveUp, generation: 3 },
      state: "waiting", // its send time is past: due at once
    });
    expect(await delivery.count()).toBe(1);

    const again = await svcctl(["jobs", "retry-dead"], env, { now });
    expect(again).toEqual({
      code: 0,
      stdout: [
        "QUEUE       RE-QUEUED",
        "ingest      0",
        "policy      0",
        "delivery    0",
        "digests     0",
        "screening   0",
        "callbacks   0",
        "webhooks    0",
        "broadcasts  0",
        "reopened 0 given-up messages",
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("--queue delivery also reopens given-up messages", async () => {
    await message("failed", "gave up: boom");
    const run = await svcctl(["jobs", "retry-dead", "--queue", "delivery"], env, { now });
    expect(run).toEqual({
      code: 0,
      stdout: "QUEUE     RE-QUEUED\ndelivery  0\nreopened 1 given-up message\n",
      stderr: "",
    });
  });

  it("--queue naming another queue leaves given-up messages alone (reopened_messages null)", async () => {
    const id = await message("failed", "gave up: boom");
    const run = await svcctl(["jobs", "retry-dead", "--queue", "callbacks", "--json"], env, { now });
    expect({ code: run.code, out: JSON.parse(run.stdout) as unknown }).toEqual({
      code: 0,
      out: { dead_jobs: { callbacks: 0 }, reopened_messages: null },
    });
    expect(await messageState(id)).toMatchObject({ status: "failed", status_reason: "gave up: boom" });
  });
});

describe("reopenGivenUpMessages", () => {
  it("works through the messages in batches", async () => {
    const ids = [
      await message("failed", "gave up: a"),
      await message("failed", "gave up: b"),
      await message("failed", "gave up: c"),
    ];
    expect(await reopenGivenUpMessages({ prisma: db.prisma, queues, now }, { batchSize: 2 })).toEqual({
      reopened: 3,
    });
    expect((await Promise.all(ids.map(messageState))).map((m) => [m.status, m.generation])).toEqual([
      ["queued", 1],
      ["queued", 1],
      ["queued", 1],
    ]);
    expect((await queues.queue("delivery").getJobs(["waiting"])).map((job) => job.id).sort()).toEqual(
      ids.map((id) => `${id}-1`).sort(),
    );
  });

  it("puts the messages back when their jobs cannot be enqueued, so a rerun finds them", async () => {
    const id = await message("failed", "gave up: provider timeout");
    const downQueues = createQueues({
      redisUrl: "redis://127.0.0.1:1",
      prefix: redis.prefix,
      unavailableAfterMs: 100,
    });
    try {
      await expect(reopenGivenUpMessages({ prisma: db.prisma, queues: downQueues, now })).rejects.toThrow(
        "redis unavailable",
      );
    } finally {
      await downQueues.close();
    }
    expect(await messageState(id)).toMatchObject({
      status: "failed",
      status_reason: "gave up: provider timeout",
    });
    expect(await reopenGivenUpMessages({ prisma: db.prisma, queues, now })).toEqual({ reopened: 1 });
    expect(await messageState(id)).toMatchObject({ status: "queued", generation: 2 });
  });
});
