import { PermanentJobError, createQueues, jobIdFor, type JobContext, type Queues } from "@svc/queue";
import { Prisma } from "@svc/store";
import type { TestDatabase } from "@svc/testkit";
import { acceptEvent, type AcceptEventDeps } from "../../events/accept-event";
import { applyPolicy } from "../apply-policy";
import { ingestEvent } from "../ingest-event";
import type { IngestDeps } from "../ingest-types";
import { ingestEventJob, ingestJobs, requeuePendingEventsSweep } from "../ingest-job";
import {
  BACKEND,
  NOW,
  digestPolicy,
  makeRecipient,
  makeRule,
  makeTemplate,
  postEvent,
  startIngestEnv,
  type IngestTestEnv,
} from "./ingest-fixtures";

// The job around ingest: follow-up jobs after commit, `failed` on the last attempt, the sweep for
// events whose job was lost, a Redis outage at accept time, and apply-policy.

let db: TestDatabase;
let queues: Queues;
let deps: IngestDeps & { queues: Queues };
let accept: AcceptEventDeps;
let env: IngestTestEnv;

const job = (attemptsMade: number, attempts = 8): JobContext => ({
  id: "j",
  name: "ingest-event",
  queue: "ingest",
  attemptsMade,
  attempts,
});

beforeAll(async () => {
  env = await startIngestEnv("ingest_job");
  ({ db, queues, deps, accept } = env);
  await makeTemplate(db.prisma, "tpl");
  await makeRecipient(db.prisma, "ann");
  await makeRule(db.prisma, { key: "ship", event: "order.shipped" });
  await makeRule(db.prisma, { key: "ship-digest", event: "order.shipped", digest: digestPolicy() });
});

afterAll(() => env.close());

it("accepting enqueues ingest-event under the event id", async () => {
  const id = await postEvent(accept, { name: "order.shipped", recipient: "ann" });
  const queued = await queues.queue("ingest").getJob(id);
  expect([queued?.name, queued?.data]).toEqual(["ingest-event", { eventId: id }]);
});

it("after commit, enqueues delivery at send_at and the digest's close at closes_at; a retry re-announces them", async () => {
  const id = await postEvent(accept, { name: "order.shipped", recipient: "ann" });
  expect(await ingestEventJob(deps)({ eventId: id }, job(0))).toEqual({ status: "processed", outcomes: 2 });

  const message = await db.prisma.message.findFirstOrThrow({ where: { event_id: id } });
  const digest = await db.prisma.digest.findFirstOrThrow({ where: { rule_key: "ship-digest" } });
  const delivery = await queues
    .queue("delivery")
    .getJob(jobIdFor("deliver-message", { messageId: message.id, generation: 0 }));
  expect(delivery?.data).toEqual({ messageId: message.id, generation: 0 });
  const close = await queues.queue("digests").getJob(digest.id);
  expect(close?.data).toEqual({ digestId: digest.id });

  await queues.queue("delivery").obliterate({ force: true });
  expect(await ingestEventJob(deps)({ eventId: id }, job(1))).toEqual({
    status: "skipped",
    reason: "processed",
  });
  expect(await queues.queue("delivery").getJob(`${message.id}-0`)).toBeDefined();
});

// Two identical addresses break the unique (recipient, channel, value): ingest throws every time.
async function brokenEvent() {
  const id = await postEvent(accept, { name: "order.shipped", recipient: "broken" });
  const twice = [
    { channel: "email", value: "x@example.com" },
    { channel: "email", value: "x@example.com" },
  ];
  await db.prisma.event.update({
    where: { id },
    data: { recipient_profile: { addresses: twice } as Prisma.InputJsonValue },
  });
  return id;
}

describe("failure", () => {
  it("an attempt with retries left leaves the event pending", async () => {
    const id = await brokenEvent();
    await expect(ingestEventJob(deps)({ eventId: id }, job(3))).rejects.toThrow();
    expect(await db.prisma.event.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: "pending",
      error: null,
    });
  });

  it("the last attempt marks the event failed with the error; nothing of it is kept", async () => {
    const id = await brokenEvent();
    await expect(ingestEventJob(deps)({ eventId: id }, job(7))).rejects.toThrow();
    const event = await db.prisma.event.findUniqueOrThrow({ where: { id } });
    expect(event.status).toBe("failed");
    expect(event.error).toMatch(/^gave up: /);
    expect(await db.prisma.recipient.findUnique({ where: { external_id: "broken" } })).toBeNull();
  });

  it("a permanent error fails the event at once", async () => {
    const id = await brokenEvent();
    const clockless = ingestEventJob({
      ...deps,
      now: () => {
        throw new PermanentJobError("clock unavailable");
      },
    });
    await expect(clockless({ eventId: id }, job(0))).rejects.toThrow("clock unavailable");
    expect(await db.prisma.event.findUniqueOrThrow({ where: { id } })).toMatchObject({
      status: "failed",
      error: "gave up: clock unavailable",
    });
  });
});

describe("ingest-events (one job per accept batch)", () => {
  const batchJob = (attemptsMade: number, attempts = 8): JobContext => ({
    ...job(attemptsMade, attempts),
    name: "ingest-events",
  });

  it("ingests every event of the batch, a person's two events in arrival order, and counts them", async () => {
    const ids = [
      await postEvent(accept, { name: "order.shipped", recipient: "ann", data: { n: 1 } }),
      await postEvent(accept, { name: "order.other", recipient: "ann", data: { n: 2 } }),
      await postEvent(accept, { name: "order.shipped", recipient: "ann", data: { n: 3 } }),
    ];
    expect(await ingestJobs(deps)["ingest-events"]({ eventIds: [...ids, ids[0]!] }, batchJob(0))).toEqual({
      processed: 3,
      skipped: 0,
      failed: 0,
    });
    expect(await db.prisma.message.count({ where: { event_id: { in: ids } } })).toBe(2);
    // One person's events go in successive transactions, first to last (xmin: the writing one).
    const rows = await db.prisma.$queryRawUnsafe<{ id: string; status: string; tx: string }[]>(
      `SELECT id, status::text, xmin::text AS tx FROM events WHERE id = ANY($1::text[])`,
      ids,
    );
    const byTx = [...rows].sort((a, b) => Number(a.tx) - Number(b.tx));
    expect(byTx.map((r) => [r.id, r.status])).toEqual(ids.map((id) => [id, "processed"]));
    expect(new Set(rows.map((r) => r.tx)).size).toBe(3);
  });

  it("a failing event fails alone: the others commit; the job retries; the last attempt marks only it failed", async () => {
    const good = await postEvent(accept, { name: "order.shipped", recipient: "ann" });
    const broken = await brokenEvent();
    const handlers = ingestJobs(deps);
    await expect(handlers["ingest-events"]({ eventIds: [good, broken] }, batchJob(0))).rejects.toThrow(
      `1 of 2 events failed (${broken}: `,
    );
    expect((await db.prisma.event.findUniqueOrThrow({ where: { id: good } })).status).toBe("processed");
    expect((await db.prisma.event.findUniqueOrThrow({ where: { id: broken } })).status).toBe("pending");

    // The retry finds the good one done (its delivery re-announced) and fails the broken one again.
    await queues.queue("delivery").obliterate({ force: true });
    await expect(handlers["ingest-events"]({ eventIds: [good, broken] }, batchJob(7))).rejects.toThrow();
    const message = await db.prisma.message.findFirstOrThrow({ where: { event_id: good } });
    expect(await queues.queue("delivery").getJob(`${message.id}-0`)).toBeDefined();
    expect(await db.prisma.message.count({ where: { event_id: good } })).toBe(1);
    expect(await db.prisma.event.findUniqueOrThrow({ where: { id: broken } })).toMatchObject({
      status: "failed",
      error: expect.stringMatching(/^gave up: /) as unknown,
    });
  });
});

it("the sweep re-enqueues events still pending after 20 s under their stable job id", async () => {
  await db.prisma.event.updateMany({ where: { status: "pending" }, data: { status: "failed" } });
  const id = await postEvent(accept, { name: "order.shipped", recipient: "ann" });
  await queues.queue("ingest").obliterate({ force: true });
  const sweep = requeuePendingEventsSweep(deps);
  expect(sweep).toMatchObject({ name: "requeue-pending-events", every: 10_000 });

  expect(await sweep.run({ sweep: sweep.name, now: new Date(NOW.getTime() + 15_000) })).toEqual({
    found: 0,
    jobIds: [],
  });
  expect(await sweep.run({ sweep: sweep.name, now: new Date(NOW.getTime() + 3_600_000) })).toEqual({
    found: 1,
    jobIds: [id],
  });
  expect((await queues.queue("ingest").getJob(id))?.data).toEqual({ eventId: id });
  await ingestEvent(deps, id);
  expect(await sweep.run({ sweep: sweep.name, now: new Date(NOW.getTime() + 3_600_000) })).toEqual({
    found: 0,
    jobIds: [],
  });
});

it("with Redis down the event is still accepted (pending) and the outage is logged", async () => {
  const down = createQueues({ redisUrl: "redis://127.0.0.1:1", prefix: "unused", unavailableAfterMs: 200 });
  const warnings: unknown[] = [];
  try {
    const accepted = await acceptEvent(
      { ...accept, queues: down, logger: { warn: (m, meta) => warnings.push([m, meta]) } },
      BACKEND,
      {
        name: "order.shipped",
        recipient: "ann",
      },
    );
    expect(accepted).toMatchObject({ duplicate: false, event: { status: "pending" } });
    expect(await db.prisma.event.findUniqueOrThrow({ where: { id: accepted.event.id } })).toMatchObject({
      status: "pending",
    });
    expect(warnings).toEqual([
      [
        "event stored but not enqueued; the pending-events sweep will enqueue it",
        expect.objectContaining({ event_id: accepted.event.id }),
      ],
    ]);
  } finally {
    await down.close().catch(() => undefined);
  }
});

describe("apply-policy", () => {
  it("recomposes one fired rule: the dedup key returns the message ingest wrote", async () => {
    const id = await postEvent(accept, { name: "order.shipped", recipient: "ann" });
    await ingestEvent(deps, id);
    const before = await db.prisma.message.findFirstOrThrow({ where: { event_id: id } });
    const result = await applyPolicy(deps, { eventId: id, ruleKey: "ship" });
    expect(result).toMatchObject({
      status: "composed",
      outcome: { rule: "ship", matched: true, status: "queued", message_id: before.id },
    });
    expect(await db.prisma.message.count({ where: { event_id: id } })).toBe(1);
  });

  it.each([
    ["a digest rule", "ship-digest", "rule_not_firing"],
    ["a rule that did not see the event", "nope", "rule_not_firing"],
  ])("skips %s", async (_name, ruleKey, reason) => {
    const id = await postEvent(accept, { name: "order.shipped", recipient: "ann" });
    expect(await applyPolicy(deps, { eventId: id, ruleKey })).toEqual({
      status: "skipped",
      reason: "event_not_processed",
    });
    await ingestEvent(deps, id);
    expect(await applyPolicy(deps, { eventId: id, ruleKey })).toEqual({ status: "skipped", reason });
  });
});
