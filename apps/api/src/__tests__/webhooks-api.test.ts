// Status webhooks through the whole API (docs/webhooks.md): endpoints, the outbox fan-out and a
// real `webhooks` worker posting to a real HTTP receiver whose signatures Python checks. The
// entries are written here as the emitting use cases write them (emit.ts), so this file tests the
// sending side alone: filters, disabled and deleted endpoints, one id across retries, 429 with
// Retry-After, 410, disable_after, the deliveries log and its retry, rotation, the test event.
import { createHmac } from "node:crypto";
import { newId } from "@svc/core";
import type { LookupFunction } from "node:net";
import {
  EndpointSlots,
  createWebhookEndpoint,
  kickOutbox,
  recordOutbox,
  sendWebhook,
  sendWebhookJob,
  sendWebhooksJob,
  startOutboxRelay,
  webhookFanOut,
  type OutboxRelay,
  type SendWebhookDeps,
} from "@svc/engine";
import { metrics } from "@svc/log";
import { createGuardedDispatcher } from "@svc/providers";
import { createWorker, dispatchTo, redisTopologyOf } from "@svc/queue";
import { $transaction, insertWebhookDeliveries, insertWebhookEndpoint } from "@svc/store";
import { waitFor } from "@svc/testkit";
import type { Worker } from "bullmq";
import { startHarness, type Harness } from "./service-harness";
import { pythonVerifies, WebhookReceiver } from "./webhook-receiver";

let h: Harness;
let receiver: WebhookReceiver;
let worker: Worker;
let relay: OutboxRelay;
const dispatcher = createGuardedDispatcher({ allowPrivate: true });
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const logged: { message: string; meta?: Record<string, unknown> }[] = [];

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  h = await startHarness("webhooks_api", {
    config: {
      // disable_after (8 s) well beyond the four quick tries of one delivery (about 1 s, 40 ms
      // first retry), so only the test that means to reach it does, on a loaded machine too.
      webhooks: { allow_private_urls: true, max_attempts: 4, disable_after: 8 },
      channels: { email: { provider: "console" } },
    },
  });
  const deps: SendWebhookDeps = {
    prisma: h.prisma,
    config: h.config,
    queues: h.queues,
    logger: { ...quiet, error: (message, meta) => logged.push({ message, ...(meta ? { meta } : {}) }) },
    now: () => new Date(),
    dispatcher,
    // Long enough that the local receiver always answers in time on a loaded machine (a try cut
    // off by its timeout is sent again, with the same id: a second arrival the exact counts below
    // would trip on); the dead receiver's test waits out this timeout.
    timeoutMs: 5_000,
    firstRetryMs: 40,
  };
  const slots = new EndpointSlots(10);
  worker = createWorker({
    queue: "webhooks",
    prefix: h.config.redis.prefix,
    redis: redisTopologyOf(h.config.redis),
    processor: dispatchTo("webhooks", {
      "send-webhook": sendWebhookJob(deps, slots),
      "send-webhooks": sendWebhooksJob(deps, slots),
    }),
    concurrency: 20,
  });
  relay = startOutboxRelay({
    prisma: h.prisma,
    notices: h.notices,
    consumers: [
      webhookFanOut({
        prisma: h.prisma,
        config: { webhooks: { ...h.config.webhooks, timeout_seconds: 5 } },
        queues: h.queues,
        logger: quiet,
        now: () => new Date(),
      }),
    ],
    logger: quiet,
    pollMs: 100,
  });
  await h.prisma.template.create({
    data: {
      key: "hello",
      locales: { en: { title: "Hi", body: "Review: [[svc:review_url]] {{ data.msg }}" } },
    },
  });
}, 60_000);
afterAll(async () => {
  await relay.close();
  await worker.close();
  await h.close();
  await receiver.close();
  await dispatcher.close();
});

let serial = 0;
async function endpoint(events: string[], extra: Record<string, unknown> = {}) {
  const path = `/hook-${++serial}`;
  const res = await h
    .as()
    .post("/v1/webhooks")
    .send({ url: receiver.url(path), events, ...extra })
    .expect(201);
  return { id: res.body.id as string, secret: res.body.secret as string, path };
}

async function emit(type: string, subject: { kind: string; id: string }, snapshot?: Record<string, unknown>) {
  await $transaction(h.prisma, (tx) =>
    recordOutbox(tx, [
      {
        topic: "webhook.event",
        payload: {
          type,
          occurred_at: new Date().toISOString(),
          subject,
          ...(snapshot ? { snapshot: snapshot as never } : {}),
        },
        notify: null,
      },
    ]),
  );
  kickOutbox(h.queues);
}

/** Until the outbox is empty: what was written so far has been fanned out. */
const settle = () =>
  waitFor(async () => (await h.prisma.outboxEntry.count()) === 0 || null, {
    timeoutMs: 10_000,
    what: "outbox empty",
  });

let people = 0;
async function message(): Promise<string> {
  const externalId = `person-${++people}`;
  await h.prisma.recipient.create({
    data: {
      id: newId("recipient"),
      external_id: externalId,
      addresses: { create: [{ channel: "email", value: `${externalId}@example.com` }] },
    },
  });
  const res = await h
    .as()
    .post("/v1/messages")
    .send({
      recipient: externalId,
      template: "hello",
      category: "transactional",
      channels: ["email"],
      data: { msg: "x" },
    });
  expect([200, 202]).toContain(res.status);
  return res.body.id as string;
}

const delivered = (path: string, count: number, timeoutMs = 10_000) =>
  waitFor(() => (receiver.to(path).length >= count ? receiver.to(path) : null), {
    timeoutMs,
    what: `${count} posts to ${path}`,
  });

async function deliveries(endpointId: string) {
  const res = await h.as().get(`/v1/webhooks/${endpointId}/deliveries`).query({ limit: 500 }).expect(200);
  return res.body.items as Record<string, unknown>[];
}

const settledDelivery = (endpointId: string, status: string) =>
  waitFor(
    async () => {
      const items = await deliveries(endpointId);
      return items.length > 0 && items.every((item) => item.status === status) ? items : null;
    },
    { timeoutMs: 10_000, what: `deliveries of ${endpointId} ${status}` },
  );

describe("endpoints", () => {
  it("create answers 201 with the secret; reads never show it again", async () => {
    const res = await h
      .as()
      .post("/v1/webhooks")
      .send({
        url: "https://hooks.example.com/svc",
        events: ["message.*", "recipient.erased"],
        description: "CRM",
      })
      .expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^whk_[0-9A-Z]{26}$/),
      url: "https://hooks.example.com/svc",
      events: ["message.*", "recipient.erased"],
      description: "CRM",
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    const read = await h.as().get(`/v1/webhooks/${res.body.id}`).expect(200);
    expect(read.body).not.toHaveProperty("secret");
    expect(JSON.stringify(read.body)).not.toContain(res.body.secret);
    const list = await h.as().get("/v1/webhooks").expect(200);
    expect(list.body.next_cursor).toBeNull();
    expect((list.body.items as { id: string }[]).map((e) => e.id)).toContain(res.body.id);
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
    // Not in the database either: only a salt, from which SVC_SECRET_KEY derives the secret.
    const [row] = await h.prisma.$queryRaw<{ json: string; salt: string }[]>`
      SELECT row_to_json(w)::text AS json, w.secret_salt AS salt FROM webhook_endpoints w WHERE id = ${res.body.id}`;
    expect(row!.json).not.toContain(res.body.secret);
    expect(row!.json).not.toContain((res.body.secret as string).slice("whsec_".length));
    const derived = createHmac("sha256", h.config.secrets.secretKey!)
      .update(`webhook-secret:${res.body.id}:${row!.salt}`)
      .digest("base64url");
    expect(res.body.secret).toBe(`whsec_${derived}`);
  });

  it("PATCH changes the fields sent; DELETE answers 204, then 404", async () => {
    const { id } = await endpoint(["*"]);
    const patched = await h
      .as()
      .patch(`/v1/webhooks/${id}`)
      .send({ events: ["message.sent"], description: "x", enabled: false })
      .expect(200);
    expect(patched.body).toMatchObject({ id, events: ["message.sent"], description: "x", enabled: false });
    await h.as().delete(`/v1/webhooks/${id}`).expect(204);
    await h.as().get(`/v1/webhooks/${id}`).expect(404);
    await h.as().delete(`/v1/webhooks/${id}`).expect(404);
    await h.as().patch(`/v1/webhooks/${id}`).send({ enabled: true }).expect(404);
  });

  it("an unknown event type answers 422 at that entry; webhook.test is not subscribable", async () => {
    const res = await h
      .as()
      .post("/v1/webhooks")
      .send({
        url: "https://hooks.example.com/a",
        events: ["message.sent", "message.exploded", "webhook.test", "nope.*"],
      })
      .expect(422);
    expect(res.body.errors).toEqual([
      { loc: ["body", "events", 1], msg: expect.stringContaining("message.exploded"), type: "value_error" },
      { loc: ["body", "events", 2], msg: expect.stringContaining("webhook.test"), type: "value_error" },
      { loc: ["body", "events", 3], msg: expect.stringContaining("nope.*"), type: "value_error" },
    ]);
  });

  it("a bad URL or unknown field answers 422", async () => {
    const bad = await h
      .as()
      .post("/v1/webhooks")
      .send({ url: "not a url", events: ["*"] })
      .expect(422);
    expect(bad.body.errors).toEqual([
      { loc: ["body", "url"], msg: "expected an absolute URL", type: "value_error" },
    ]);
    for (const body of [
      { url: "ftp://x.example.com/", events: ["*"] },
      { url: "https://x.example.com/", events: [] },
      { url: "https://x.example.com/", events: ["*"], secret: "mine" },
      // The bounds: a URL of 2,048 characters at most, 50 filters, a description of 500.
      { url: `https://x.example.com/${"a".repeat(2048)}`, events: ["*"] },
      { url: "https://x.example.com/", events: Array.from({ length: 51 }, () => "message.sent") },
      { url: "https://x.example.com/", events: ["*"], description: "d".repeat(501) },
    ]) {
      const res = await h.as().post("/v1/webhooks").send(body).expect(422);
      expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 422, title: expect.any(String), detail: expect.any(String) });
      expect(res.body.errors.length).toBeGreaterThan(0);
      expect(res.body.errors[0].loc[0]).toBe("body");
    }
  });

  it("answers problems with a useful detail: 404 names the id, a malformed body is 400", async () => {
    const missing = await h.as().get("/v1/webhooks/whk_01JD7Z5X3Q8M2V4N6R9T0W1Y2Z").expect(404);
    expect(missing.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(missing.body.detail).toContain("whk_01JD7Z5X3Q8M2V4N6R9T0W1Y2Z");
    const malformed = await h
      .as()
      .post("/v1/webhooks")
      .set("content-type", "application/json")
      .send('{"url": ')
      .expect(400);
    expect(malformed.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(malformed.body.detail).toEqual(expect.any(String));
  });

  it("keys without admin get 403", async () => {
    const key = await h.keyWith(["messages:read", "messages:write", "events:write", "recipients:write"]);
    await h.as(key).get("/v1/webhooks").expect(403);
    await h
      .as(key)
      .post("/v1/webhooks")
      .send({ url: "https://x.example.com/", events: ["*"] })
      .expect(403);
    await h.as(key).get("/v1/webhooks/whk_01JD7Z5X3Q8M2V4N6R9T0W1Y2Z/deliveries").expect(403);
  });

  it("agent keys get 403", async () => {
    const key = await h.keyWith(["messages:write"], "billing-bot");
    await h.as(key).get("/v1/webhooks").expect(403);
  });
});

describe("sending", () => {
  it("posts {id, type, created_at, data} signed, with Idempotency-Key and JSON; Python verifies it", async () => {
    const messageId = await message(); // its message.queued goes out before the endpoint exists
    await settle();
    const { id, secret, path } = await endpoint(["message.*"]);
    await emit("message.sent", { kind: "message", id: messageId }, { status: "sent", status_reason: null });
    const [post] = await delivered(path, 1);
    expect(post!.headers["content-type"]).toBe("application/json");
    expect(post!.headers["idempotency-key"]).toBe(post!.body.id);
    expect(post!.body).toEqual({
      id: expect.stringMatching(/^whe_\d+_[0-9A-Z]{26}$/),
      type: "message.sent",
      created_at: expect.any(String),
      data: expect.objectContaining({
        id: messageId,
        status: "sent",
        status_reason: null,
        recipient: "person-1",
      }),
    });
    expect(Object.keys(post!.body)).toEqual(["id", "type", "created_at", "data"]);
    // Never a placeholder, link or token in data.
    expect(post!.raw.toString()).not.toContain("[[svc:");
    expect(post!.raw.toString()).not.toMatch(/https?:\/\//);
    expect(pythonVerifies([secret, "whsec_wrong"], [post!])).toEqual([
      { [secret]: true, whsec_wrong: false },
    ]);
    const [row] = await settledDelivery(id, "succeeded");
    expect(row).toEqual({
      id: expect.stringMatching(/^whd_/),
      event_id: post!.body.id,
      type: "message.sent",
      status: "succeeded",
      attempts: 1,
      last_status_code: 200,
      last_error: null,
      next_attempt_at: null,
      created_at: expect.any(String),
    });
  });

  it("filters: a type, a family and * each hear exactly their events", async () => {
    const messageId = await message();
    await settle();
    const sent = await endpoint(["message.sent"]);
    const family = await endpoint(["recipient.*"]);
    const all = await endpoint(["*"]);
    await emit(
      "message.failed",
      { kind: "message", id: messageId },
      { status: "failed", status_reason: "x" },
    );
    await emit(
      "recipient.erased",
      { kind: "recipient", id: "rcp_X" },
      {
        external_id: "p-9",
        source: "api",
        changes: {},
        created_at: new Date().toISOString(),
      },
    );
    await emit("message.sent", { kind: "message", id: messageId }, { status: "sent", status_reason: null });
    await delivered(all.path, 3);
    await delivered(family.path, 1);
    await delivered(sent.path, 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.to(sent.path).map((p) => p.body.type)).toEqual(["message.sent"]);
    expect(receiver.to(family.path).map((p) => p.body.type)).toEqual(["recipient.erased"]);
    expect(
      receiver
        .to(all.path)
        .map((p) => p.body.type)
        .sort(),
    ).toEqual(["message.failed", "message.sent", "recipient.erased"]);
    // recipient.* data is the frozen snapshot, never a lookup of the (maybe erased) person.
    expect(receiver.to(family.path)[0]!.body.data).toEqual({
      external_id: "p-9",
      source: "api",
      changes: {},
      created_at: expect.any(String),
    });
    // One event, one id per endpoint; endpoints' ids differ.
    const ids = [...receiver.to(all.path), ...receiver.to(sent.path)].map((p) => p.body.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("disabled and deleted endpoints hear nothing", async () => {
    const disabled = await endpoint(["*"], { enabled: false });
    const deleted = await endpoint(["*"]);
    const control = await endpoint(["*"]);
    await h.as().delete(`/v1/webhooks/${deleted.id}`).expect(204);
    await emit(
      "recipient.erased",
      { kind: "recipient", id: "rcp_Y" },
      { external_id: "p-10", source: "api", changes: {}, created_at: "x" },
    );
    await delivered(control.path, 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.to(disabled.path)).toHaveLength(0);
    expect(receiver.to(deleted.path)).toHaveLength(0);
    expect(await deliveries(disabled.id)).toEqual([]);
  });

  it("retries on 503, 408 and 429 (after Retry-After) carry one id and one body; the fourth try succeeds", async () => {
    const { id, secret, path } = await endpoint(["recipient.erased"]);
    receiver.answer(path, [503, 429, 408, 200], { "retry-after": "1" });
    await emit(
      "recipient.erased",
      { kind: "recipient", id: "rcp_Z" },
      { external_id: "p-11", source: "api", changes: {}, created_at: "x" },
    );
    const posts = await delivered(path, 4, 15_000);
    expect(new Set(posts.map((p) => p.body.id)).size).toBe(1);
    expect(new Set(posts.map((p) => p.headers["idempotency-key"])).size).toBe(1);
    expect(new Set(posts.map((p) => JSON.stringify(p.body))).size).toBe(1);
    // The 429's Retry-After (1 s) was honoured; the others waited the first retries' few ms.
    expect(posts[2]!.at - posts[1]!.at).toBeGreaterThanOrEqual(950);
    expect(pythonVerifies([secret], posts).every((v) => v[secret])).toBe(true);
    const [row] = await settledDelivery(id, "succeeded");
    expect(row).toMatchObject({
      status: "succeeded",
      attempts: 4,
      last_status_code: 200,
      last_error: "webhook 408",
    });
    const endpointNow = await h.as().get(`/v1/webhooks/${id}`).expect(200);
    expect(endpointNow.body).toMatchObject({ enabled: true, failing_since: null });
  });

  it("a 4xx other than 408/429 fails at once; the log shows it and an operator's retry sends it again", async () => {
    const { id, path } = await endpoint(["recipient.erased"]);
    receiver.answer(path, [400, 204]);
    await emit(
      "recipient.erased",
      { kind: "recipient", id: "rcp_W" },
      { external_id: "p-12", source: "api", changes: {}, created_at: "x" },
    );
    const [failed] = await settledDelivery(id, "failed");
    expect(failed).toMatchObject({
      status: "failed",
      attempts: 1,
      last_status_code: 400,
      last_error: "webhook 400",
      next_attempt_at: null,
    });
    const failedOnly = await h
      .as()
      .get(`/v1/webhooks/${id}/deliveries`)
      .query({ status: "failed" })
      .expect(200);
    expect(failedOnly.body.items).toHaveLength(1);
    const retried = await h.as().post(`/v1/webhooks/${id}/deliveries/${failed!.id}/retry`).expect(200);
    expect(retried.body).toMatchObject({ id: failed!.id, status: "pending", attempts: 0 });
    const [done] = await settledDelivery(id, "succeeded");
    expect(done).toMatchObject({ attempts: 1, last_status_code: 204 });
    const posts = receiver.to(path);
    expect(posts).toHaveLength(2);
    expect(posts[1]!.body.id).toBe(posts[0]!.body.id);
    const again = await h.as().post(`/v1/webhooks/${id}/deliveries/${failed!.id}/retry`).expect(409);
    expect(again.body.title).toBe("Invalid state");
    await h.as().post(`/v1/webhooks/${id}/deliveries/whd_01JD7Z5X3Q8M2V4N6R9T0W1Y2Z/retry`).expect(404);
  });

  it("after max_attempts (4) the delivery is failed", async () => {
    const { id, path } = await endpoint(["recipient.erased"]);
    receiver.answer(path, [500]);
    await emit(
      "recipient.erased",
      { kind: "recipient", id: "rcp_V" },
      { external_id: "p-13", source: "api", changes: {}, created_at: "x" },
    );
    const [row] = await settledDelivery(id, "failed");
    expect(row).toMatchObject({ attempts: 4, last_status_code: 500, last_error: "webhook 500" });
    expect(receiver.to(path)).toHaveLength(4);
  });

  it("410 disables the endpoint at once, with a log line and a metric", async () => {
    const before =
      (await metrics.webhookEndpointsDisabled.get()).values.find((v) => v.labels.reason === "gone")?.value ??
      0;
    const { id, path } = await endpoint(["recipient.erased"]);
    receiver.answer(path, [410]);
    await emit(
      "recipient.erased",
      { kind: "recipient", id: "rcp_U" },
      { external_id: "p-14", source: "api", changes: {}, created_at: "x" },
    );
    const [row] = await settledDelivery(id, "failed");
    expect(row).toMatchObject({ attempts: 1, last_status_code: 410 });
    const ep = await h.as().get(`/v1/webhooks/${id}`).expect(200);
    expect(ep.body).toMatchObject({ enabled: false, disabled_reason: "gone" });
    const after =
      (await metrics.webhookEndpointsDisabled.get()).values.find((v) => v.labels.reason === "gone")?.value ??
      0;
    expect(after).toBe(before + 1);
    expect(logged.some((l) => l.message.includes("410") && l.meta?.endpoint_id === id)).toBe(true);
    // Later events are not sent to it; re-enabling clears the reason.
    await emit(
      "recipient.erased",
      { kind: "recipient", id: "rcp_U2" },
      { external_id: "p-15", source: "api", changes: {}, created_at: "x" },
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.to(path)).toHaveLength(1);
    const enabled = await h.as().patch(`/v1/webhooks/${id}`).send({ enabled: true }).expect(200);
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
  });

  it("an endpoint failing every try for webhooks.disable_after (8 s here) is disabled as failing", async () => {
    const { id, path } = await endpoint(["recipient.erased"]);
    receiver.answer(path, [503]);
    // A new event every second keeps it failing past disable_after (one delivery's tries end in
    // about a second).
    let n = 0;
    const emitOne = () =>
      emit(
        "recipient.erased",
        { kind: "recipient", id: `rcp_T${n++}` },
        { external_id: "p", source: "api", changes: {}, created_at: "x" },
      );
    await emitOne();
    // Every emit is awaited before the test ends: one still in flight would reach the next test's
    // endpoints.
    const inFlight: Promise<unknown>[] = [];
    const ticking = setInterval(() => inFlight.push(emitOne().catch(() => undefined)), 1_000);
    const ep = await waitFor(
      async () => {
        const res = await h.as().get(`/v1/webhooks/${id}`).expect(200);
        return res.body.enabled === false ? res.body : null;
      },
      { timeoutMs: 40_000, what: "endpoint disabled" },
    ).finally(() => clearInterval(ticking));
    await Promise.all(inFlight);
    await settle();
    expect(ep).toMatchObject({
      enabled: false,
      disabled_reason: "failing",
      failing_since: expect.any(String),
    });
    expect(logged.some((l) => l.meta?.endpoint_id === id && l.meta?.reason === "failing")).toBe(true);
    expect(receiver.to(path).length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it("rotate-secret: the new secret is shown once; both sign during the overlap", async () => {
    const { id, secret, path } = await endpoint(["recipient.erased"]);
    const res = await h.as().post(`/v1/webhooks/${id}/rotate-secret`).expect(200);
    expect(res.body).toEqual({
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
      previous_secret_expires_at: expect.any(String),
    });
    expect(Date.parse(res.body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    await emit(
      "recipient.erased",
      { kind: "recipient", id: "rcp_S" },
      { external_id: "p-16", source: "api", changes: {}, created_at: "x" },
    );
    const post = await waitFor(
      () => receiver.to(path).find((p) => p.body.data?.external_id === "p-16") ?? null,
      { timeoutMs: 10_000, what: "the rotated endpoint's post" },
    );
    await settle();
    expect(pythonVerifies([res.body.secret, secret], [post])).toEqual([
      { [res.body.secret]: true, [secret]: true },
    ]);
    expect(String(post.headers["svc-signature"]).match(/v1=/g)).toHaveLength(2);
    await h.as().post("/v1/webhooks/whk_01JD7Z5X3Q8M2V4N6R9T0W1Y2Z/rotate-secret").expect(404);
  });

  it("POST /test sends a webhook.test event to that endpoint alone", async () => {
    // Earlier tests' events all fanned out first: `other` takes every type.
    await settle();
    const { id, secret, path } = await endpoint(["message.sent"]);
    const other = await endpoint(["*"]);
    const res = await h.as().post(`/v1/webhooks/${id}/test`).expect(202);
    expect(res.body).toMatchObject({ type: "webhook.test", status: "pending", attempts: 0 });
    const [post] = await delivered(path, 1);
    expect(post!.body).toMatchObject({
      id: res.body.event_id,
      type: "webhook.test",
      data: { endpoint: { id } },
    });
    expect(pythonVerifies([secret], [post!])[0]![secret]).toBe(true);
    expect(receiver.to(other.path)).toHaveLength(0);
    await h.as().patch(`/v1/webhooks/${id}`).send({ enabled: false }).expect(200);
    await h.as().post(`/v1/webhooks/${id}/test`).expect(409);
  });

  it("a dead receiver delays neither another endpoint nor itself beyond one probe at a time", async () => {
    const dead = await endpoint(["recipient.erased"]);
    const healthy = await endpoint(["recipient.erased"]);
    receiver.hang(dead.path);
    const started = Date.now();
    for (let i = 0; i < 30; i++)
      await emit(
        "recipient.erased",
        { kind: "recipient", id: `rcp_D${i}` },
        { external_id: "p", source: "api", changes: {}, created_at: "x" },
      );
    await delivered(healthy.path, 30);
    // 30 events with a 5 s timeout each at the dead one (150 s one after the other); the healthy one
    // is not held up by them (the bound leaves room for a loaded machine).
    expect(Date.now() - started).toBeLessThan(10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // The dead one was tried by at most the first concurrent wave plus a probe or two, not 30 times.
    expect(receiver.to(dead.path).length).toBeLessThan(30);
    await h.as().delete(`/v1/webhooks/${dead.id}`).expect(204);
  });
});

describe("SSRF refusals (webhooks.allow_private_urls off)", () => {
  const strict = () => ({
    prisma: h.prisma,
    config: { webhooks: { ...h.config.webhooks, allow_private_urls: false }, secrets: h.config.secrets },
    now: () => new Date(),
    // Names resolve as a hostile DNS would answer them.
    resolve: async (host: string) =>
      host === "inside.example.com"
        ? ["10.1.2.3"]
        : host === "mixed.example.com"
          ? ["8.8.8.8", "127.0.0.1"]
          : ["93.184.215.14"],
  });

  it.each([
    ["http://hooks.example.com/x", "expected an https:// URL"],
    ["https://127.0.0.1/x", "must not point at an internal network address"],
    ["https://[::1]/x", "must not point at an internal network address"],
    ["https://[::ffff:127.0.0.1]/x", "must not point at an internal network address"],
    ["https://10.0.0.5/x", "must not point at an internal network address"],
    ["https://192.168.1.1/x", "must not point at an internal network address"],
    ["https://169.254.169.254/latest/meta-data", "must not point at an internal network address"],
    ["https://[fe80::1]/x", "must not point at an internal network address"],
    ["https://2130706433/x", "must not point at an internal network address"],
    ["https://localhost/x", "must not point at an internal network address"],
    ["https://api.localhost/x", "must not point at an internal network address"],
    ["https://intranet/x", "must not point at an internal network address"],
    ["https://inside.example.com/x", "must not point at an internal network address"],
    ["https://mixed.example.com/x", "must not point at an internal network address"],
    ["https://user:pw@hooks.example.com/x", "must not hold credentials"],
  ])("%s is refused with 422: %s", async (url, msg) => {
    const error = await createWebhookEndpoint(strict(), { url, events: ["*"] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      status: 422,
      errors: [{ loc: ["body", "url"], msg, type: "value_error" }],
    });
  });

  it("an https URL of a public address is accepted", async () => {
    const created = await createWebhookEndpoint(strict(), {
      url: "https://hooks.example.com/x",
      events: ["*"],
    });
    expect(created.url).toBe("https://hooks.example.com/x");
    await h.as().delete(`/v1/webhooks/${created.id}`).expect(204);
  });

  it("is checked again at connect time: a name that resolves inside later is refused, never connected", async () => {
    const path = "/rebind";
    const port = new URL(receiver.base).port;
    const endpointRow = await insertWebhookEndpoint(h.prisma, {
      id: newId("webhook"),
      url: `http://rebind.example.com:${port}${path}`,
      events: ["recipient.erased"],
      description: null,
      enabled: true,
      secretSalt: "salt",
      now: new Date(),
    });
    const deliveryId = newId("webhookDelivery");
    await insertWebhookDeliveries(h.prisma, [
      {
        id: deliveryId,
        endpointId: endpointRow.id,
        eventId: `whe_rebind_${deliveryId}`,
        type: "recipient.erased",
        body: JSON.stringify({ id: "whe_rebind", type: "recipient.erased", created_at: "x", data: {} }),
        now: new Date(),
      },
    ]);
    const lookup = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
      setImmediate(() =>
        options.all ? callback(null, [{ address: "127.0.0.1", family: 4 }]) : callback(null, "127.0.0.1", 4),
      )) as unknown as LookupFunction;
    const guarded = createGuardedDispatcher({ allowPrivate: false, lookup });
    try {
      const outcome = await sendWebhook(
        {
          prisma: h.prisma,
          config: {
            webhooks: { ...h.config.webhooks, allow_private_urls: false },
            secrets: h.config.secrets,
          },
          queues: h.queues,
          logger: quiet,
          now: () => new Date(),
          dispatcher: guarded,
        },
        deliveryId,
      );
      expect(outcome).toEqual({ status: "failed", attempts: 1, error: "webhook refused: internal address" });
    } finally {
      await guarded.close();
    }
    expect(receiver.to(path)).toHaveLength(0);
    const [row] = await deliveries(endpointRow.id);
    expect(row).toMatchObject({
      status: "failed",
      last_error: "webhook refused: internal address",
      last_status_code: null,
    });
  });

  it("redirects are not followed: a 302 is a failed try", async () => {
    const { id, path } = await endpoint(["recipient.erased"]);
    receiver.answer(path, [302]);
    await emit(
      "recipient.erased",
      { kind: "recipient", id: "rcp_R" },
      { external_id: "p", source: "api", changes: {}, created_at: "x" },
    );
    const [row] = await settledDelivery(id, "failed");
    expect(row).toMatchObject({ attempts: 1, last_status_code: 302, last_error: "webhook 302" });
    expect(receiver.to(path)).toHaveLength(1);
  });
});

// docs/webhooks.md "Personal data": erasing a person deletes the deliveries about them.
describe("erasure", () => {
  it("deletes the person's deliveries, pending or sent, on every endpoint; recipient.erased still goes; others' stay", async () => {
    const ok = await endpoint(["message.*", "recipient.*"]);
    const held = await endpoint(["message.*", "recipient.*"]);
    // Its rows stay pending: every try is told to come back in an hour.
    receiver.answer(held.path, [429], { "retry-after": "3600" });
    const erasedMessage = await message();
    const erasedExternal = `person-${people}`;
    const keptMessage = await message();
    const keptExternal = `person-${people}`;
    const idOf = async (externalId: string) =>
      (await h.prisma.recipient.findUniqueOrThrow({ where: { external_id: externalId } })).id;
    const erasedId = await idOf(erasedExternal);
    const keptId = await idOf(keptExternal);
    for (const [id, externalId] of [
      [erasedId, erasedExternal],
      [keptId, keptExternal],
    ] as const)
      await emit(
        "recipient.preferences_changed",
        { kind: "recipient", id },
        { external_id: externalId, source: "api", changes: { locale: "de" }, created_at: "x" },
      );
    await emit(
      "message.sent",
      { kind: "message", id: erasedMessage },
      { status: "sent", status_reason: null },
    );
    await emit("message.sent", { kind: "message", id: keptMessage }, { status: "sent", status_reason: null });
    await settle();
    await settledDelivery(ok.id, "succeeded");
    const rows = () =>
      h.prisma.webhookDelivery.findMany({
        where: { endpoint_id: { in: [ok.id, held.id] } },
        select: { id: true, endpoint_id: true, type: true, status: true, recipient_id: true, body: true },
      });
    const before = await rows();
    // Fan-out names the person: the message's recipient, a recipient.* subject.
    const about = (rowsOf: typeof before, id: string, endpointId: string) =>
      rowsOf
        .filter((r) => r.recipient_id === id && r.endpoint_id === endpointId)
        .map((r) => `${r.type}:${r.status}`)
        .sort();
    for (const id of [erasedId, keptId]) {
      expect(about(before, id, ok.id)).toEqual(
        expect.arrayContaining(["message.sent:succeeded", "recipient.preferences_changed:succeeded"]),
      );
      expect(about(before, id, held.id)).toEqual(
        expect.arrayContaining(["message.sent:pending", "recipient.preferences_changed:pending"]),
      );
    }
    expect(before.every((r) => r.recipient_id === erasedId || r.recipient_id === keptId)).toBe(true);
    const keptRows = before
      .filter((r) => r.recipient_id === keptId)
      .map((r) => r.id)
      .sort();
    const okPosts = receiver.to(ok.path).length;

    await h.as().delete(`/v1/recipients/${erasedExternal}`).expect(204);

    const [erasedPost] = await waitFor(
      () => {
        const posts = receiver.to(ok.path).filter((p) => p.body.type === "recipient.erased");
        return posts.length > 0 ? posts : null;
      },
      { timeoutMs: 10_000, what: "recipient.erased to the endpoint" },
    );
    expect(erasedPost!.body.data).toEqual(expect.objectContaining({ external_id: erasedExternal }));
    expect(receiver.to(ok.path)).toHaveLength(okPosts + 1);
    await settle();
    const after = await rows();
    // Only the erasure itself is left about them (the held endpoint may be disabled as failing by
    // then, webhooks.disable_after is 8 s here); the other person's rows are untouched.
    const erasedRows = (rowsOf: typeof before) =>
      rowsOf.filter((r) => r.recipient_id === erasedId).map((r) => [r.endpoint_id, r.type]);
    expect(erasedRows(after)).toContainEqual([ok.id, "recipient.erased"]);
    expect(erasedRows(after).every(([, type]) => type === "recipient.erased")).toBe(true);
    expect(erasedRows(after).length).toBeLessThanOrEqual(2);
    expect(after.some((r) => JSON.stringify(r.body).includes(erasedMessage))).toBe(false);
    expect(
      after
        .filter((r) => r.recipient_id === keptId)
        .map((r) => r.id)
        .sort(),
    ).toEqual(keptRows);
    // A change about them still in the outbox when they were erased is not sent.
    await emit(
      "recipient.preferences_changed",
      { kind: "recipient", id: erasedId },
      { external_id: erasedExternal, source: "api", changes: { locale: "fr" }, created_at: "x" },
    );
    await emit(
      "recipient.preferences_changed",
      { kind: "recipient", id: keptId },
      { external_id: keptExternal, source: "api", changes: { locale: "fr" }, created_at: "x" },
    );
    await settle();
    const late = await rows();
    expect(erasedRows(late).sort()).toEqual(erasedRows(after).sort());
    expect(late.filter((r) => r.recipient_id === keptId && r.endpoint_id === ok.id)).toHaveLength(
      after.filter((r) => r.recipient_id === keptId && r.endpoint_id === ok.id).length + 1,
    );
    // The deliveries log no longer lists them.
    const listed = (await deliveries(ok.id)).map((item) => item.id).sort();
    expect(listed).toEqual(
      late
        .filter((r) => r.endpoint_id === ok.id)
        .map((r) => r.id)
        .sort(),
    );
    expect(
      late.filter((r) => r.endpoint_id === ok.id && r.recipient_id === erasedId).map((r) => r.type),
    ).toEqual(["recipient.erased"]);
  });
});
