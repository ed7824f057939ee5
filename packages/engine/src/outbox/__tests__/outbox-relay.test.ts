import { createNoticeBus, createQueues, type NoticeBus, type Queues } from "@svc/queue";
import { $transaction, outboxBacklog, type TransactionClient } from "@svc/store";
import {
  createTestDatabase,
  testRedisPrefix,
  waitFor,
  type TestDatabase,
  type TestRedisPrefix,
} from "@svc/testkit";
import { kickOutbox, recordOutbox, type NewOutboxEntry } from "../outbox";
import { startOutboxRelay } from "../outbox-relay";
import {
  relayOutboxOnce,
  type OutboxConsumer,
  type OutboxEntryRow,
  type OutboxNotice,
} from "../relay-outbox";

// The relay (docs/outbox.md "The relay") against the real Postgres and Redis: entries are fanned
// out to consumers and notices in one transaction with their deletion, a failure anywhere puts the
// batch back, a writer's kick wakes the relay at once, and relays running side by side share the
// work without doing any twice.

let db: TestDatabase;
let redis: TestRedisPrefix;
let notices: NoticeBus;
let queues: Queues;

beforeAll(async () => {
  db = await createTestDatabase("outbox_relay");
  redis = testRedisPrefix("outbox_relay");
  notices = createNoticeBus({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
});
afterAll(async () => {
  await notices.close();
  await queues.close();
  await redis.cleanup();
  await db.drop();
});
beforeEach(() => db.prisma.$executeRaw`DELETE FROM outbox`);

const write = (entries: NewOutboxEntry[]) => $transaction(db.prisma, (tx) => recordOutbox(tx, entries));

const heard = async (channel: string) => {
  const got: OutboxNotice[] = [];
  const stop = await notices.subscribe(notices.channel(channel), (message) => got.push(JSON.parse(message)));
  return { got, stop };
};

function recordingConsumer(): OutboxConsumer & { seen: string[]; afterCommitBacklog: number[] } {
  const consumer = {
    name: "recording",
    seen: [] as string[],
    afterCommitBacklog: [] as number[],
    async consume(_tx: TransactionClient, entries: readonly OutboxEntryRow[]) {
      consumer.seen.push(...entries.map((e) => e.id));
      return async () => {
        consumer.afterCommitBacklog.push((await outboxBacklog(db.prisma)).count);
      };
    },
  };
  return consumer;
}

describe("relayOutboxOnce", () => {
  it("hands every entry to the consumers, publishes those with a channel, and deletes them", async () => {
    await write([
      { topic: "approval.decided", payload: { approval_id: "apr_1" }, notify: "approvals:apr_1" },
      { topic: "message.sent", payload: { message_id: "msg_1" } },
    ]);
    const listener = await heard("approvals:apr_1");
    const consumer = recordingConsumer();
    expect(await relayOutboxOnce({ prisma: db.prisma, notices, consumers: [consumer] }, 10)).toBe(2);
    expect(consumer.seen).toHaveLength(2);
    // The after-commit work runs once the entries are gone for everyone.
    expect(consumer.afterCommitBacklog).toEqual([0]);
    await waitFor(() => listener.got.length === 1, { what: "the notice" });
    expect(listener.got[0]).toEqual({
      id: consumer.seen[0],
      topic: "approval.decided",
      payload: { approval_id: "apr_1" },
    });
    await listener.stop();
  });

  it("puts the batch back when a consumer fails, and runs no after-commit work", async () => {
    await write([{ topic: "message.sent", payload: { message_id: "msg_2" } }]);
    const after = jest.fn();
    const failing: OutboxConsumer = {
      name: "failing",
      async consume() {
        throw new Error("consumer down");
      },
    };
    const consumer: OutboxConsumer = { name: "ok", consume: async () => after };
    await expect(
      relayOutboxOnce({ prisma: db.prisma, notices, consumers: [consumer, failing] }, 10),
    ).rejects.toThrow("consumer down");
    expect(after).not.toHaveBeenCalled();
    expect((await outboxBacklog(db.prisma)).count).toBe(1);
  });

  it("puts the batch back when a notice cannot be published", async () => {
    await write([{ topic: "approval.decided", payload: {}, notify: "approvals:apr_3" }]);
    const down = {
      channel: notices.channel,
      publish: async () => {
        throw new Error("redis unreachable");
      },
    };
    await expect(relayOutboxOnce({ prisma: db.prisma, notices: down, consumers: [] }, 10)).rejects.toThrow(
      "redis unreachable",
    );
    expect((await outboxBacklog(db.prisma)).count).toBe(1);
  });
});

describe("startOutboxRelay", () => {
  it("relays at once when a writer kicks it, long before its next poll", async () => {
    const consumer = recordingConsumer();
    const relay = startOutboxRelay({
      prisma: db.prisma,
      notices,
      consumers: [consumer],
      logger: console,
      pollMs: 60_000,
    });
    try {
      await waitFor(async () => (await subscribers(notices.channel("outbox:kick"))) >= 1, {
        what: "relay subscribed",
      });
      await write([{ topic: "message.sent", payload: { message_id: "msg_4" } }]);
      const kickedAt = Date.now();
      kickOutbox(queues);
      await waitFor(() => consumer.seen.length === 1, { timeoutMs: 2_000, intervalMs: 5, what: "relayed" });
      expect(Date.now() - kickedAt).toBeLessThan(500);
    } finally {
      await relay.close();
    }
  });

  it("relays without a kick by its next poll", async () => {
    const consumer = recordingConsumer();
    const relay = startOutboxRelay({
      prisma: db.prisma,
      notices,
      consumers: [consumer],
      logger: console,
      pollMs: 200,
    });
    try {
      await write([{ topic: "message.sent", payload: { message_id: "msg_5" } }]);
      await waitFor(() => consumer.seen.length === 1, { timeoutMs: 2_000, what: "relayed by the poll" });
    } finally {
      await relay.close();
    }
  });

  it("three relays draining 1,000 entries hand each to a consumer exactly once", async () => {
    const consumers = [recordingConsumer(), recordingConsumer(), recordingConsumer()];
    await write(Array.from({ length: 1000 }, (_, n) => ({ topic: "message.sent", payload: { n } })));
    const relays = consumers.map((consumer) =>
      startOutboxRelay({
        prisma: db.prisma,
        notices,
        consumers: [consumer],
        logger: console,
        batchSize: 50,
        pollMs: 50,
      }),
    );
    try {
      await waitFor(async () => (await outboxBacklog(db.prisma)).count === 0, {
        timeoutMs: 20_000,
        what: "drained",
      });
      const seen = consumers.flatMap((c) => c.seen);
      expect(seen).toHaveLength(1000);
      expect(new Set(seen).size).toBe(1000);
    } finally {
      await Promise.all(relays.map((r) => r.close()));
    }
  });
});

async function subscribers(channel: string): Promise<number> {
  const [, count] = (await queues.redis.pubsub("NUMSUB", channel)) as [string, number];
  return Number(count);
}
