import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseConfig } from "@svc/config";
import { waitFor } from "@svc/testkit";
import { retryCallback } from "../operator-callbacks";
import { CALLBACK_MAX_ATTEMPTS } from "../callback-retry";
import { sendCallback, sendCallbackJob } from "../send-callback";
import { CALLBACK_SECRET, startCallbackBench, type CallbackBench } from "./callback-fixtures";

// Decision callbacks end to end: recorded as a decision records them, sent by a real BullMQ
// worker over real HTTP to a receiver that checks the signature with its own code.

let bench: CallbackBench;

beforeAll(async () => {
  bench = await startCallbackBench("send_callbacks", { retryBaseMs: 5 });
  bench.startWorker(4);
});
afterAll(() => bench.close());

/** A port nothing listens on (any more). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const row = (id: string) => bench.prisma.callbackDelivery.findUniqueOrThrow({ where: { id } });
const settled = (id: string, timeoutMs = 8000) =>
  waitFor(
    async () => {
      const r = await row(id);
      return r.status === "pending" ? null : r;
    },
    { timeoutMs, what: `callback ${id} delivered or failed` },
  );

describe("a receiver that answers 500 twice, then 200", () => {
  let id: string;

  beforeAll(async () => {
    bench.receiver.reset();
    bench.receiver.answer(500, 500, 200);
    id = await bench.decide({ id: "apr_RETRIED", comment: null, metadata: { ticket: "T-1" } });
    await settled(id);
  });

  it("sees exactly 3 signed POSTs with the same body and Idempotency-Key; the row ends delivered", async () => {
    const posts = bench.receiver.posts;
    expect(posts.map((p) => [p.verified, p.status])).toEqual([
      [true, 500],
      [true, 500],
      [true, 200],
    ]);
    expect(new Set(posts.map((p) => p.headers["idempotency-key"]))).toEqual(new Set([id]));
    expect(new Set(posts.map((p) => p.raw.toString("utf8"))).size).toBe(1);
    for (const post of posts) {
      expect(post.headers["content-type"]).toBe("application/json");
      expect(post.headers["user-agent"]).toBe("svc");
      expect(post.headers["svc-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    }
    expect(await row(id)).toMatchObject({
      status: "delivered",
      attempts: 3,
      last_error: "callback 500",
      next_attempt_at: null,
      delivered_at: expect.any(Date),
    });
  });

  it("posts the documented body, fields in the documented order", () => {
    const raw = bench.receiver.posts[0]!.raw.toString("utf8");
    expect(Object.keys(JSON.parse(raw))).toEqual([
      "type",
      "kind",
      "id",
      "status",
      "title",
      "agent",
      "decided_by",
      "comment",
      "decided_at",
      "metadata",
    ]);
    expect(JSON.parse(raw)).toEqual({
      type: "approval.decided",
      kind: "action",
      id: "apr_RETRIED",
      status: "approved",
      title: "Refund order 1001",
      agent: "support-bot",
      decided_by: "link:ann",
      comment: null,
      decided_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      metadata: { ticket: "T-1" },
    });
  });

  it("the receiver's check can fail: a replay with the old header 301 s later, a changed body and another secret are refused", async () => {
    const captured = bench.receiver.posts[2]!;
    const header = captured.headers["svc-signature"] as string;
    const post = (body: Buffer | string, signature: string) =>
      fetch(bench.receiver.url, {
        method: "POST",
        headers: { "content-type": "application/json", "svc-signature": signature },
        body,
      });
    // Within the 300 s tolerance the capture still verifies (receivers drop it by Idempotency-Key).
    bench.receiver.clockOffsetSeconds = 299;
    expect((await post(captured.raw, header)).status).toBe(200);
    bench.receiver.clockOffsetSeconds = 301;
    expect((await post(captured.raw, header)).status).toBe(401);
    bench.receiver.clockOffsetSeconds = 0;
    const tampered = captured.raw.toString("utf8").replace("approved", "rejected");
    expect((await post(tampered, header)).status).toBe(401);
    const t = /t=(\d+)/.exec(header)![1]!;
    const otherSecret = createHmac("sha256", "not-the-secret")
      .update(`${t}.`)
      .update(captured.raw)
      .digest("hex");
    expect((await post(captured.raw, `t=${t},v1=${otherSecret}`)).status).toBe(401);
    expect((await row(id)).attempts).toBe(3);
  });
});

describe("retries", () => {
  beforeEach(() => bench.receiver.reset());

  it(`gives up after ${CALLBACK_MAX_ATTEMPTS} failed tries: failed, with the last error`, async () => {
    bench.receiver.answer(503);
    const id = await bench.decide({ status: "rejected", comment: "no" });
    expect(await settled(id, 15_000)).toMatchObject({
      status: "failed",
      attempts: 10,
      last_error: "callback 503",
      next_attempt_at: null,
      delivered_at: null,
    });
    expect(bench.receiver.posts).toHaveLength(10);
    expect(bench.receiver.posts.every((p) => p.verified && p.headers["idempotency-key"] === id)).toBe(true);
    expect(bench.logs).toContainEqual({
      level: "error",
      message: "callback failed for good",
      meta: { callback_id: id, subject_id: expect.any(String), attempts: 10, error: "callback 503" },
    });

    // An operator's retry: pending again with no attempts, a new job, delivered on its first try.
    bench.receiver.answer(200);
    expect(await retryCallback(bench.deps, id)).toMatchObject({ id, status: "pending", attempts: 0 });
    expect(await settled(id)).toMatchObject({ status: "delivered", attempts: 1, last_error: "callback 503" });
    expect(bench.receiver.posts).toHaveLength(11);
    await expect(retryCallback(bench.deps, id)).rejects.toMatchObject({
      status: 409,
      title: "Invalid state",
      detail: "callback is delivered; only failed callbacks can be retried",
    });
    await expect(retryCallback(bench.deps, "cbk_UNKNOWN")).rejects.toMatchObject({
      status: 404,
      detail: "no callback 'cbk_UNKNOWN'",
    });
  });

  it("a 4xx answer is tried again too (a misconfigured receiver is fixed, the decision not lost)", async () => {
    bench.receiver.answer(400, 404, 200);
    const id = await bench.decide();
    expect(await settled(id)).toMatchObject({ status: "delivered", attempts: 3, last_error: "callback 404" });
  });

  it("a timeout and a refused connection are failed tries with their reason", async () => {
    const id = await bench.decide({}, { enqueue: false });
    bench.receiver.delayMs = 600;
    const slow = { ...bench.deps, timeoutMs: 200, retryBaseMs: 60_000 };
    await expect(sendCallback(slow, CALLBACK_SECRET, id)).resolves.toMatchObject({
      status: "retry",
      attempts: 1,
      error: "callback timeout after 200 ms",
    });
    await bench.prisma.callbackDelivery.update({ where: { id }, data: { next_attempt_at: new Date() } });
    const refused = {
      ...slow,
      config: parseConfig(
        { approvals: { callback_url: `http://127.0.0.1:${await closedPort()}/x` } },
        { SVC_CALLBACK_SECRET: "s" },
      ),
    };
    await expect(sendCallback(refused, "s", id)).resolves.toMatchObject({
      status: "retry",
      attempts: 2,
      error: "callback connection failed",
    });
    expect(await row(id)).toMatchObject({ status: "pending", attempts: 2 });
  });

  it("a repeated or early job does nothing: only the job of a due try sends", async () => {
    bench.receiver.answer(200);
    const id = await bench.decide({}, { enqueue: false });
    await bench.prisma.callbackDelivery.update({
      where: { id },
      data: { next_attempt_at: new Date(Date.now() + 60_000) },
    });
    await expect(sendCallback(bench.deps, CALLBACK_SECRET, id)).resolves.toEqual({
      status: "skipped",
      reason: "not due",
    });
    await expect(sendCallback(bench.deps, CALLBACK_SECRET, "cbk_NONE")).resolves.toEqual({
      status: "skipped",
      reason: "not found",
    });
    expect(bench.receiver.posts).toHaveLength(0);
  });

  it("20 jobs of one callback at once: one POST, one outcome", async () => {
    bench.receiver.answer(200);
    const id = await bench.decide({}, { enqueue: false });
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => sendCallback(bench.deps, CALLBACK_SECRET, id)),
    );
    expect(outcomes.filter((o) => o.status === "delivered")).toHaveLength(1);
    expect(bench.receiver.posts).toHaveLength(1);
    expect(await row(id)).toMatchObject({ status: "delivered", attempts: 1 });
    await expect(sendCallback(bench.deps, CALLBACK_SECRET, id)).resolves.toEqual({
      status: "skipped",
      reason: "already delivered",
    });
  });
});

describe("configuration", () => {
  beforeEach(() => bench.receiver.reset());

  it("a callback URL without SVC_CALLBACK_SECRET stops the worker's start, naming the variable", () => {
    const unsigned = parseConfig({ approvals: { callback_url: "https://backend.example/decisions" } }, {});
    expect(() => sendCallbackJob({ ...bench.deps, config: unsigned })).toThrow(
      "invalid configuration: approvals.callback_url: requires SVC_CALLBACK_SECRET to sign callbacks",
    );
  });

  it("a callback recorded while a URL was set, sent after it was removed, fails without a POST", async () => {
    const id = await bench.decide({}, { enqueue: false });
    const unset = { ...bench.deps, config: parseConfig({}, {}) };
    await expect(sendCallback(unset, null, id)).resolves.toEqual({
      status: "failed",
      attempts: 1,
      error: "not sent: approvals.callback_url is not set",
    });
    expect(bench.receiver.posts).toHaveLength(0);
  });
});
