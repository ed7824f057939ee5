import { parseConfig } from "@svc/config";
import { AppError, type Principal } from "@svc/core";
import { createQueues, type Queues } from "@svc/queue";
import { createPrisma } from "@svc/store";
import { createTestDatabase, testRedisPrefix, type TestDatabase, type TestRedisPrefix } from "@svc/testkit";
import { acceptEvent, type AcceptEventDeps, type AcceptedEvent } from "../accept-event";
import { createEventBatcher } from "../event-batcher";
import type { EventInput } from "../event-input";

// Group commit: concurrent accepts share one INSERT and one bulk enqueue; each request still gets
// its own answer (stored, duplicate, 409, or its own error).

const BACKEND: Principal = { keyId: "key_1", keyName: "backend", scopes: ["events:write"], agentKey: null };
const NOW = new Date("2026-03-01T12:00:00.000Z");

let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
let warnings: [string, Record<string, unknown> | undefined][];

beforeAll(async () => {
  db = await createTestDatabase("event_batcher");
  redis = testRedisPrefix("event_batcher");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
});

afterAll(async () => {
  await queues.close();
  await redis.cleanup();
  await db.drop();
});

beforeEach(async () => {
  warnings = [];
  await db.prisma.event.deleteMany();
  await queues.queue("ingest").obliterate({ force: true });
});

function batched(options: { maxInFlight?: number } = {}) {
  const batches: number[] = [];
  const deps: AcceptEventDeps = {
    prisma: db.prisma,
    queues,
    logger: { warn: (message, meta) => warnings.push([message, meta]) },
    now: () => NOW,
    config: parseConfig({}),
  };
  const eventBatcher = createEventBatcher(deps, { ...options, onBatch: (rows) => batches.push(rows) });
  return { deps: { ...deps, eventBatcher }, batches };
}

const event = (n: number, extra: Partial<EventInput> = {}): EventInput => ({
  name: "order.created",
  recipient: `user-${n}`,
  data: { order: n },
  ...extra,
});

const settle = (promises: Promise<AcceptedEvent>[]) => Promise.allSettled(promises);

it("concurrent accepts share one INSERT and one ingest job, each with its own answer", async () => {
  const { deps, batches } = batched();
  const accepted = await Promise.all([1, 2, 3, 4, 5].map((n) => acceptEvent(deps, BACKEND, event(n))));
  expect(batches).toEqual([5]);
  expect(accepted.map((a) => [a.duplicate, a.event.recipient, a.event.data, a.event.status])).toEqual(
    [1, 2, 3, 4, 5].map((n) => [false, `user-${n}`, { order: n }, "pending"]),
  );
  expect(new Set(accepted.map((a) => a.event.id)).size).toBe(5);
  const rows = await db.prisma.event.findMany({ orderBy: { recipient_external_id: "asc" } });
  expect(
    rows.map((r) => [
      r.id,
      r.status,
      r.source,
      r.sender,
      r.api_key_id,
      r.data,
      r.recipient_profile,
      r.created_at,
    ]),
  ).toEqual(
    accepted.map((a, i) => [a.event.id, "pending", "api", "backend", "key_1", { order: i + 1 }, null, NOW]),
  );
  // One `ingest-events` job for the batch, named by its first event, listing them in order.
  const jobs = await queues.queue("ingest").getJobs(["waiting", "delayed", "prioritized"]);
  const ids = accepted.map((a) => a.event.id);
  expect(jobs.map((j) => [j.id, j.name, j.data])).toEqual([
    [`${ids[0]}-batch`, "ingest-events", { eventIds: ids }],
  ]);
});

it("a lone accept keeps its own ingest-event job under the event id", async () => {
  const { deps } = batched();
  const accepted = await acceptEvent(deps, BACKEND, event(1));
  const jobs = await queues.queue("ingest").getJobs(["waiting", "delayed", "prioritized"]);
  expect(jobs.map((j) => [j.id, j.name, j.data])).toEqual([
    [accepted.event.id, "ingest-event", { eventId: accepted.event.id }],
  ]);
});

it("the answer is the stored event (read back, it serialises the same)", async () => {
  const { deps } = batched();
  const accepted = await acceptEvent(
    deps,
    BACKEND,
    event(1, { idempotency_key: "k-view", data: { b: [1, "x"], a: null } }),
  );
  const replay = await acceptEvent(
    deps,
    BACKEND,
    event(1, { idempotency_key: "k-view", data: { a: null, b: [1, "x"] } }),
  );
  expect(replay).toEqual({ duplicate: true, event: accepted.event });
});

it("identical requests with one key in the same batch store one event; the others get it as a duplicate", async () => {
  const { deps, batches } = batched();
  const results = await Promise.all(
    Array.from({ length: 6 }, () => acceptEvent(deps, BACKEND, event(7, { idempotency_key: "same" }))),
  );
  expect(batches).toEqual([6]);
  expect(results.map((r) => r.duplicate).sort()).toEqual([false, true, true, true, true, true]);
  expect(new Set(results.map((r) => r.event.id)).size).toBe(1);
  expect(await db.prisma.event.count()).toBe(1);
  expect(await queues.queue("ingest").getJobCountByTypes("waiting", "delayed", "prioritized")).toBe(1);
});

it("one key with two bodies in the same batch: one is stored, the other is 409", async () => {
  const { deps } = batched();
  const [first, second] = await settle([
    acceptEvent(deps, BACKEND, event(1, { idempotency_key: "twice" })),
    acceptEvent(deps, BACKEND, event(2, { idempotency_key: "twice" })),
  ]);
  const outcomes = [first, second].map((r) =>
    r!.status === "fulfilled" ? r!.value.duplicate : (r!.reason as AppError).status,
  );
  expect(outcomes.sort()).toEqual([409, false]);
  expect(await db.prisma.event.count()).toBe(1);
});

it("keys are per sender within a batch too", async () => {
  const { deps } = batched();
  const agent: Principal = { keyId: "key_2", keyName: "bot", scopes: ["events:write"], agentKey: "bot" };
  const [backend, bot] = await Promise.all([
    acceptEvent(deps, BACKEND, event(1, { idempotency_key: "shared" })),
    acceptEvent(deps, agent, event(1, { idempotency_key: "shared" })),
  ]);
  expect([backend.duplicate, bot.duplicate, bot.event.agent]).toEqual([false, false, "bot"]);
  expect(await db.prisma.event.count()).toBe(2);
});

it("a key stored by an earlier batch answers with the original while the batch's new rows are stored", async () => {
  const { deps, batches } = batched({ maxInFlight: 1 });
  const original = await acceptEvent(deps, BACKEND, event(1, { idempotency_key: "earlier" }));
  const [replay, conflict, fresh] = await settle([
    acceptEvent(deps, BACKEND, event(1, { idempotency_key: "earlier" })),
    acceptEvent(deps, BACKEND, event(9, { idempotency_key: "earlier" })),
    acceptEvent(deps, BACKEND, event(2, { idempotency_key: "new" })),
  ]);
  expect(batches).toEqual([1, 3]);
  expect(replay).toEqual({ status: "fulfilled", value: { duplicate: true, event: original.event } });
  expect(conflict).toMatchObject({ status: "rejected", reason: { status: 409 } });
  expect((conflict as PromiseRejectedResult).reason.detail).toBe(
    "idempotency_key 'earlier' was already used with a different request body",
  );
  expect(fresh).toMatchObject({
    status: "fulfilled",
    value: { duplicate: false, event: { idempotency_key: "new" } },
  });
  expect(await db.prisma.event.count()).toBe(2);
});

it("a key past its retention is released and stored again as a new event", async () => {
  const { deps } = batched();
  const old = await acceptEvent(deps, BACKEND, event(1, { idempotency_key: "expired" }));
  await db.prisma.event.update({
    where: { id: old.event.id },
    data: { idempotency_expires_at: new Date(NOW.getTime() - 1) },
  });
  const again = await acceptEvent(deps, BACKEND, event(2, { idempotency_key: "expired" }));
  expect(again.duplicate).toBe(false);
  expect(again.event.id).not.toBe(old.event.id);
  const rows = await db.prisma.event.findMany({
    orderBy: { created_at: "asc" },
    select: { id: true, idempotency_key: true },
  });
  expect(rows.sort((a, b) => (a.id === old.event.id ? -1 : b.id === old.event.id ? 1 : 0))).toEqual([
    { id: old.event.id, idempotency_key: null },
    { id: again.event.id, idempotency_key: "expired" },
  ]);
});

it("a row Postgres cannot store fails alone (422); the rest of its batch is stored and enqueued", async () => {
  const { deps, batches } = batched();
  const results = await settle([
    acceptEvent(deps, BACKEND, event(1)),
    acceptEvent(deps, BACKEND, event(2, { data: { note: "nul \u0000 inside" } })),
    acceptEvent(deps, BACKEND, event(3, { data: { ["key \u0000"]: 1 } })),
    acceptEvent(deps, BACKEND, event(4)),
  ]);
  expect(batches).toEqual([4]);
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
  for (const failed of [results[1], results[2]] as PromiseRejectedResult[]) {
    expect(failed.reason).toBeInstanceOf(AppError);
    expect(failed.reason).toMatchObject({
      status: 422,
      detail: "the event holds text Postgres cannot store (such as the character \\u0000)",
      errors: [
        {
          loc: ["body"],
          msg: "contains a character that cannot be stored (such as \\u0000)",
          type: "value_error",
        },
      ],
    });
  }
  const stored = (await db.prisma.event.findMany()).map((r) => r.recipient_external_id).sort();
  expect(stored).toEqual(["user-1", "user-4"]);
  expect(await queues.queue("ingest").getJobCountByTypes("waiting", "delayed", "prioritized")).toBe(2);
});

it("with Postgres unreachable every request of the batch gets 503 and the outage is logged once", async () => {
  const unreachable = createPrisma({ databaseUrl: "postgresql://postgres@127.0.0.1:1/none" });
  try {
    const { deps } = batched();
    const results = await settle(
      [1, 2, 3].map((n) =>
        acceptEvent(
          {
            ...deps,
            prisma: unreachable,
            eventBatcher: createEventBatcher({ ...deps, prisma: unreachable }),
          },
          BACKEND,
          event(n),
        ),
      ),
    );
    expect(results.map((r) => (r as PromiseRejectedResult).reason)).toEqual(
      [1, 2, 3].map(() =>
        expect.objectContaining({
          status: 503,
          detail: "the event could not be stored right now; retry the request",
        }),
      ),
    );
    expect(warnings.map(([message, meta]) => [message, meta?.events])).toContainEqual([
      "events not stored: database unavailable",
      expect.any(Number),
    ]);
  } finally {
    await unreachable.$disconnect();
  }
});

it("a connection Postgres ends in the middle of the batch INSERT gives every request of it 503", async () => {
  const { deps } = batched();
  // Hold the table so the batch INSERT waits on its lock, then end that backend as a restarting
  // server would (SQLSTATE 57P01, admin_shutdown).
  const holder = createPrisma({ databaseUrl: db.databaseUrl });
  try {
    const held = holder.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("LOCK TABLE events IN ACCESS EXCLUSIVE MODE");
      const accepts = settle([1, 2, 3].map((n) => acceptEvent(deps, BACKEND, event(n))));
      let waiting: { pid: number }[] = [];
      while (waiting.length === 0) {
        waiting = await db.prisma.$queryRawUnsafe<{ pid: number }[]>(
          "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO events%'",
        );
      }
      await db.prisma.$queryRawUnsafe("SELECT pg_terminate_backend($1)", waiting[0]!.pid);
      return accepts;
    });
    const results = await held;
    expect(results.map((r) => (r as PromiseRejectedResult).reason)).toEqual(
      [1, 2, 3].map(() =>
        expect.objectContaining({
          status: 503,
          detail: "the event could not be stored right now; retry the request",
        }),
      ),
    );
    expect(warnings).toContainEqual([
      "events not stored: database unavailable",
      expect.objectContaining({ events: 3, code: "57P01" }),
    ]);
    expect(await db.prisma.event.count()).toBe(0);
    // The pool dropped the ended connection: the next accept is stored.
    const next = await acceptEvent(deps, BACKEND, event(4));
    expect(next.event.status).toBe("pending");
  } finally {
    await holder.$disconnect();
  }
});

it("with Redis down the batch is stored (pending) and each event is logged for the sweep", async () => {
  const down = createQueues({ redisUrl: "redis://127.0.0.1:1", prefix: "unused", unavailableAfterMs: 200 });
  try {
    const deps: AcceptEventDeps = {
      prisma: db.prisma,
      queues: down,
      logger: { warn: (message, meta) => warnings.push([message, meta]) },
      config: parseConfig({}),
      now: () => NOW,
    };
    const withBatcher = { ...deps, eventBatcher: createEventBatcher(deps) };
    const accepted = await Promise.all([1, 2].map((n) => acceptEvent(withBatcher, BACKEND, event(n))));
    expect(await db.prisma.event.count({ where: { status: "pending" } })).toBe(2);
    expect(warnings.map(([message, meta]) => [message, meta?.event_id])).toEqual(
      accepted.map((a) => [
        "event stored but not enqueued; the pending-events sweep will enqueue it",
        a.event.id,
      ]),
    );
  } finally {
    await down.close().catch(() => undefined);
  }
});

it("batches wait for a free slot and then go out together", async () => {
  const { deps, batches } = batched({ maxInFlight: 1 });
  const first = acceptEvent(deps, BACKEND, event(1));
  await new Promise((resolve) => setImmediate(resolve)); // the first batch is now being written
  const rest = [2, 3, 4].map((n) => acceptEvent(deps, BACKEND, event(n)));
  await Promise.all([first, ...rest]);
  expect(batches).toEqual([1, 3]);
});
