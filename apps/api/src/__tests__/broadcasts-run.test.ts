import { setTimeout as sleep } from "node:timers/promises";
import { newId } from "@svc/core";
import { waitFor } from "@svc/testkit";
import { buildHandlers, queuesWithHandlers, startWorkers, type RunningWorkers } from "@svc/worker";
import { createLogCapture, createLogger } from "@svc/log";
import type { Queues } from "@svc/queue";
import { startHarness, type Harness } from "./service-harness";

// Broadcasts running through real workers (docs/broadcasts.md): full policy per person, a filter,
// a scheduled start, pause and resume, cancel mid-run, and the fleet-wide rate. Every recipient
// ends with at most one message of the broadcast.

let h: Harness;
let workers: RunningWorkers;
const deliveriesThroughRedis: string[] = [];

beforeAll(async () => {
  h = await startHarness("broadcasts_run", {
    config: {
      channels: { email: { provider: "console" } },
      // Quiet hours off by default, so the outcome does not depend on when the suite runs.
      policy: { quiet_hours: { start: "00:00", end: "00:00" } },
    },
  });
  await h.prisma.template.create({
    data: { key: "promo", locales: { en: { title: "Hi", body: "{{ data.offer }}" } } },
  });
  const logger = createLogger({
    service: "broadcast-workers",
    level: "error",
    stream: createLogCapture().stream,
  });
  // The handlers' queues note every delivery that goes to Redis (the inline-delivery test below).
  const queues = h.queues;
  const recording: Queues = {
    prefix: queues.prefix,
    redis: queues.redis,
    enqueue: (name, payload, opts) => {
      if (name === "deliver-message")
        deliveriesThroughRedis.push((payload as { messageId: string }).messageId);
      return queues.enqueue(name, payload, opts);
    },
    enqueueBulk: (items) => {
      for (const item of items) {
        if (item.name === "deliver-message") deliveriesThroughRedis.push(item.payload.messageId);
        if (item.name === "deliver-messages")
          for (const m of item.payload.messages) deliveriesThroughRedis.push(m.messageId);
      }
      return queues.enqueueBulk(items);
    },
    queue: (name) => queues.queue(name),
    ready: (timeoutMs) => queues.ready(timeoutMs),
    close: () => queues.close(),
  };
  const { handlers } = buildHandlers({
    queues: recording,
    logger,
    prisma: h.prisma,
    config: h.config,
    now: () => new Date(),
    env: {},
    deliverInline: true,
  });
  workers = startWorkers({ config: h.config, handlers, queues: queuesWithHandlers(handlers), logger });
  await h.queues.ready(30_000);
}, 60_000);

afterAll(async () => {
  await workers?.close();
  await h?.close();
});

let people = 0;
/** `count` people with an e-mail address; returns their external ids. */
async function createPeople(
  count: number,
  fields: { attributes?: object; quiet_hours?: object; unsubscribed_categories?: string[] } = {},
): Promise<string[]> {
  const rows = Array.from({ length: count }, () => {
    const external_id = `p${++people}`;
    return { id: newId("recipient"), external_id, ...fields };
  });
  await h.prisma.recipient.createMany({ data: rows });
  await h.prisma.address.createMany({
    data: rows.map((r) => ({ recipient_id: r.id, channel: "email", value: `${r.external_id}@example.com` })),
  });
  return rows.map((r) => r.external_id);
}

async function startBroadcast(audience: object, extra: object = {}): Promise<string> {
  const created = await h
    .as()
    .post("/v1/broadcasts")
    .send({ name: "b", template: "promo", category: "marketing", channels: ["email"], audience, ...extra })
    .expect(201);
  await h.as().post(`/v1/broadcasts/${created.body.id}/start`).expect(200);
  return created.body.id as string;
}

const read = async (id: string) => (await h.as().get(`/v1/broadcasts/${id}`).expect(200)).body;

function untilStatus(id: string, status: string, timeoutMs = 30_000) {
  return waitFor(async () => ((await read(id)).status === status ? read(id) : false), {
    timeoutMs,
    intervalMs: 100,
    what: `broadcast ${id} ${status}`,
  });
}

/** Messages of the broadcast per recipient: every count must be 1. */
async function messagesPerPerson(id: string): Promise<Map<string, number>> {
  const rows = await h.prisma.message.groupBy({
    by: ["recipient_external_id"],
    where: { broadcast_id: id },
    _count: { _all: true },
  });
  return new Map(rows.map((r) => [r.recipient_external_id, r._count._all]));
}

describe("running a broadcast", () => {
  it("composes one message per person through the full policy; unknown ids are skipped", async () => {
    const ok = await createPeople(256);
    const [unsubscribed] = await createPeople(1, { unsubscribed_categories: ["marketing"] });
    const [capped] = await createPeople(1);
    const cappedRow = await h.prisma.recipient.findUniqueOrThrow({ where: { external_id: capped! } });
    // Two marketing messages today already: the built-in cap is 2 per day.
    for (let i = 0; i < 2; i++) {
      await h.prisma.message.create({
        data: {
          id: newId("message"),
          status: "sent",
          recipient_id: cappedRow.id,
          recipient_external_id: capped!,
          sender: "backend",
          category: "marketing",
          importance: "normal",
          claimed_importance: "normal",
          channels: ["email"],
          send_at: new Date(Date.now() - (i + 1) * 60_000),
          link_nonce: "n",
        },
      });
    }
    const audience = [...ok, unsubscribed!, capped!, "nobody-1", "nobody-2"];
    const id = await startBroadcast({ recipients: audience });
    await untilStatus(id, "completed");
    // Composing ends the broadcast; deliveries may trail it by a moment.
    const done = await waitFor(async () => ((await read(id)).counts.sent === 256 ? read(id) : false));
    expect(done).toMatchObject({
      total: 260,
      processed: 260,
      skipped: 2,
      counts: { sent: 256, suppressed: 2, queued: 0, sending: 0, failed: 0, cancelled: 0 },
      completed_at: expect.any(String),
    });
    const perPerson = await messagesPerPerson(id);
    expect(perPerson.size).toBe(258);
    expect([...perPerson.values()].every((n) => n === 1)).toBe(true);
    const reasons = await h.prisma.message.findMany({
      where: { broadcast_id: id, status: "suppressed" },
      select: { recipient_external_id: true, status_reason: true },
      orderBy: { recipient_external_id: "asc" },
    });
    expect(reasons).toEqual(
      [
        { recipient_external_id: unsubscribed, status_reason: "unsubscribed" },
        { recipient_external_id: capped, status_reason: "frequency_cap: 2 per P1D" },
      ].sort((a, b) => a.recipient_external_id!.localeCompare(b.recipient_external_id!)),
    );
  }, 60_000);

  it("a worker that also delivers sends the due messages itself, none through Redis", async () => {
    const audience = await createPeople(5);
    const id = await startBroadcast({ recipients: audience });
    await waitFor(async () => ((await read(id)).counts.sent === 5 ? true : false));
    const messages = await h.prisma.message.findMany({ where: { broadcast_id: id }, select: { id: true } });
    expect(messages).toHaveLength(5);
    const ids = new Set(messages.map((m) => m.id));
    expect(deliveriesThroughRedis.filter((messageId) => ids.has(messageId))).toEqual([]);
  }, 30_000);

  it("the same worker's ingest hands its due messages to its own delivery, none through Redis", async () => {
    await h
      .as()
      .post("/v1/rules")
      .send({
        key: "inline-ping",
        event: "inline.ping",
        template: "promo",
        category: "marketing",
        channels: ["email"],
        importance: "high",
      })
      .expect(201);
    const [person] = await createPeople(1);
    const accepted = await h
      .as()
      .post("/v1/events")
      .send({ name: "inline.ping", recipient: person, data: { offer: "now" } })
      .expect(202);
    const message = await waitFor(async () => {
      const row = await h.prisma.message.findFirst({ where: { event_id: accepted.body.id } });
      return row?.status === "sent" ? row : undefined;
    });
    expect(message.channel).toBe("email");
    expect(deliveriesThroughRedis).not.toContain(message.id);
  }, 30_000);

  it("a category gone by the time it runs fails the broadcast with the reason, nothing composed", async () => {
    await h.prisma.category.create({ data: { key: "gone-soon" } });
    const audience = await createPeople(3);
    const created = await h
      .as()
      .post("/v1/broadcasts")
      .send({
        name: "b",
        template: "promo",
        category: "gone-soon",
        channels: ["email"],
        audience: { recipients: audience },
      })
      .expect(201);
    // Removed behind the API's back (the API refuses to delete a category in use).
    await h.prisma.category.delete({ where: { key: "gone-soon" } });
    await h.as().post(`/v1/broadcasts/${created.body.id}/start`).expect(200);
    const failed = await untilStatus(created.body.id, "failed");
    expect(failed.status_reason).toBe("misconfigured: category 'gone-soon' does not exist");
    expect(await h.prisma.message.count({ where: { broadcast_id: created.body.id } })).toBe(0);
  }, 30_000);

  it("a filter audience is evaluated when it starts: only the matching people", async () => {
    const pro = await createPeople(30, { attributes: { plan: "pro" } });
    await createPeople(20, { attributes: { plan: "free" } });
    const id = await startBroadcast({ filter: { "==": [{ var: "recipient.attributes.plan" }, "pro"] } });
    await untilStatus(id, "completed");
    const done = await waitFor(async () => ((await read(id)).counts.sent === 30 ? read(id) : false));
    expect(done).toMatchObject({ total: 30, processed: 30, skipped: 0 });
    expect([...(await messagesPerPerson(id)).keys()].sort()).toEqual([...pro].sort());
  }, 30_000);

  it("a scheduled broadcast waits for send_at, then runs", async () => {
    const ids = await createPeople(10);
    const sendAt = new Date(Date.now() + 2_500);
    const id = await startBroadcast({ recipients: ids }, { send_at: sendAt.toISOString() });
    expect((await read(id)).status).toBe("scheduled");
    await sleep(1_000);
    expect(await h.prisma.message.count({ where: { broadcast_id: id } })).toBe(0);
    const done = await untilStatus(id, "completed", 15_000);
    await waitFor(async () => (await read(id)).counts.sent === 10, { what: "all sent" });
    const first = await h.prisma.message.findFirstOrThrow({
      where: { broadcast_id: id },
      orderBy: { created_at: "asc" },
    });
    expect(first.created_at.getTime()).toBeGreaterThanOrEqual(sendAt.getTime());
    expect(new Date(done.started_at).getTime()).toBeGreaterThanOrEqual(sendAt.getTime());
  }, 30_000);

  it("pause stops new messages within a second; resume goes on; one message each", async () => {
    const ids = await createPeople(300);
    const id = await startBroadcast({ recipients: ids }, { rate_per_second: 100 });
    await waitFor(async () => (await read(id)).processed >= 60, { timeoutMs: 15_000, intervalMs: 50 });
    await h.as().post(`/v1/broadcasts/${id}/pause`).expect(200);
    await sleep(1_000);
    const afterASecond = await h.prisma.message.count({ where: { broadcast_id: id } });
    await sleep(1_500);
    expect(await h.prisma.message.count({ where: { broadcast_id: id } })).toBe(afterASecond);
    expect(afterASecond).toBeLessThan(300);
    const paused = await read(id);
    expect(paused).toMatchObject({ status: "paused", processed: afterASecond });
    await h.as().post(`/v1/broadcasts/${id}/resume`).expect(200);
    await untilStatus(id, "completed");
    const done = await waitFor(async () => ((await read(id)).counts.sent === 300 ? read(id) : false));
    expect(done).toMatchObject({ total: 300, processed: 300 });
    const perPerson = await messagesPerPerson(id);
    expect(perPerson.size).toBe(300);
    expect([...perPerson.values()].every((n) => n === 1)).toBe(true);
  }, 60_000);

  it("cancel mid-run: queued messages become cancelled with `broadcast cancelled`, no more are composed", async () => {
    // Quiet hours around now: every message waits queued, so cancelling has something to take back.
    const hhmm = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString().slice(11, 16);
    const ids = await createPeople(300, { quiet_hours: { start: hhmm(-3_600_000), end: hhmm(7_200_000) } });
    const id = await startBroadcast({ recipients: ids }, { rate_per_second: 100 });
    await waitFor(async () => (await read(id)).processed >= 50, { timeoutMs: 15_000, intervalMs: 50 });
    const cancelled = await h.as().post(`/v1/broadcasts/${id}/cancel`).expect(200);
    expect(cancelled.body.status).toBe("cancelled");
    // A chunk still composing sees the cancel and takes its messages back too; then none is left.
    await waitFor(async () => (await h.queues.queue("broadcasts").getActiveCount()) === 0, {
      timeoutMs: 15_000,
    });
    const byStatus = await h.prisma.message.groupBy({
      by: ["status", "status_reason"],
      where: { broadcast_id: id },
      _count: { _all: true },
    });
    expect(byStatus.map((g) => [g.status, g.status_reason])).toEqual([["cancelled", "broadcast cancelled"]]);
    const composed = byStatus[0]!._count._all;
    expect(composed).toBeGreaterThanOrEqual(50);
    expect(composed).toBeLessThan(300);
    await sleep(1_000);
    const final = await read(id);
    expect(final).toMatchObject({ status: "cancelled", counts: { cancelled: composed, queued: 0 } });
  }, 60_000);
});

describe("throttling", () => {
  it("rate_per_second 50 over 1,000 recipients takes 20 s ± 10 %", async () => {
    const ids = await createPeople(1000);
    const id = await startBroadcast({ recipients: ids }, { rate_per_second: 50 });
    const done = await untilStatus(id, "completed", 40_000);
    const first = await h.prisma.message.aggregate({
      where: { broadcast_id: id },
      _min: { created_at: true },
      _max: { created_at: true },
    });
    const seconds = (new Date(done.completed_at).getTime() - new Date(done.started_at).getTime()) / 1000;
    const spread = (first._max.created_at!.getTime() - first._min.created_at!.getTime()) / 1000;
    expect(done.processed).toBe(1000);
    expect(seconds).toBeGreaterThanOrEqual(18);
    expect(seconds).toBeLessThanOrEqual(22);
    expect(spread).toBeGreaterThanOrEqual(18);
  }, 60_000);
});
