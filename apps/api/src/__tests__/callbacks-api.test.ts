import {
  callbackJob,
  recordDecisionCallback,
  sendCallbackJob,
  type DecisionCallbackBody,
  type SendCallbackDeps,
} from "@svc/engine";
import { createWorker, dispatchTo, redisTopologyOf } from "@svc/queue";
import { $transaction } from "@svc/store";
import { CallbackReceiver, waitFor } from "@svc/testkit";
import type { Worker } from "bullmq";
import { startHarness, type Harness } from "./service-harness";

// GET /v1/callbacks and POST /v1/callbacks/{id}/retry through the whole API, with a real worker
// sending to a receiver that checks the signature itself: 10 failed tries end `failed`, an
// operator's retry sends it again.

const SECRET = "api-test-callback-secret";
let h: Harness;
let receiver: CallbackReceiver;
let worker: Worker;
let serial = 0;

beforeAll(async () => {
  receiver = await new CallbackReceiver(SECRET).start();
  h = await startHarness("callbacks_api", { config: { approvals: { callback_url: receiver.url } } });
  const deps: SendCallbackDeps = {
    prisma: h.prisma,
    config: { ...h.config, secrets: { ...h.config.secrets, callbackSecret: SECRET } },
    queues: h.queues,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    now: () => new Date(),
    retryBaseMs: 2,
  };
  worker = createWorker({
    queue: "callbacks",
    prefix: h.config.redis.prefix,
    redis: redisTopologyOf(h.config.redis),
    processor: dispatchTo("callbacks", { "send-callback": sendCallbackJob(deps) }),
  });
});
afterAll(async () => {
  await worker.close();
  await h.close();
  await receiver.close();
});

async function decide(status: DecisionCallbackBody["status"] = "approved"): Promise<string> {
  serial += 1;
  const id = await $transaction(h.prisma, (tx) =>
    recordDecisionCallback(
      tx,
      { config: h.config, now: () => new Date() },
      {
        type: "approval.decided",
        kind: "message",
        id: `msg_API${serial}`,
        status,
        title: "Your invoice",
        agent: "billing-bot",
        decided_by: "ops key",
        comment: null,
        decided_at: new Date().toISOString(),
        metadata: {},
      },
    ),
  );
  await h.queues.enqueueBulk([callbackJob(id!)]);
  return id!;
}

const settled = (id: string, status: string) =>
  waitFor(
    async () => {
      const res = await h.as().get("/v1/callbacks").query({ limit: 500 }).expect(200);
      const found = (res.body.items as { id: string; status: string }[]).find((c) => c.id === id);
      return found?.status === status ? found : null;
    },
    { timeoutMs: 10_000, what: `callback ${id} ${status}` },
  );

describe("a callback whose receiver keeps failing", () => {
  let failedId: string;

  beforeAll(async () => {
    receiver.answer(502);
    failedId = await decide("rejected");
    await settled(failedId, "failed");
  });

  it("is listed as failed after 10 tries, with the last error", async () => {
    const res = await h.as().get("/v1/callbacks").query({ status: "failed" }).expect(200);
    expect(res.body).toEqual({
      items: [
        {
          id: failedId,
          kind: "approval.decided",
          subject_id: "msg_API1",
          status: "failed",
          attempts: 10,
          last_error: "callback 502",
          next_attempt_at: null,
          created_at: expect.any(String),
          delivered_at: null,
          body: expect.objectContaining({ type: "approval.decided", id: "msg_API1", status: "rejected" }),
        },
      ],
      next_cursor: null,
    });
    expect(receiver.posts).toHaveLength(10);
    expect(receiver.posts.every((p) => p.verified)).toBe(true);
  });

  it("retry: pending again with no attempts, then delivered on its first new try", async () => {
    receiver.answer(204);
    const res = await h.as().post(`/v1/callbacks/${failedId}/retry`).expect(200);
    expect(res.body).toMatchObject({
      id: failedId,
      status: "pending",
      attempts: 0,
      last_error: "callback 502",
    });
    expect(Date.parse(res.body.next_attempt_at as string)).toBeLessThanOrEqual(Date.now());
    expect(await settled(failedId, "delivered")).toMatchObject({
      attempts: 1,
      delivered_at: expect.any(String),
    });
    expect(receiver.posts).toHaveLength(11);
    expect(receiver.posts[10]!.raw.equals(receiver.posts[0]!.raw)).toBe(true);
    expect(receiver.posts[10]!.headers["idempotency-key"]).toBe(failedId);
  });

  it("retrying a delivered or a pending callback is 409 Invalid state; an unknown id 404", async () => {
    const delivered = await h.as().post(`/v1/callbacks/${failedId}/retry`).expect(409);
    expect(delivered.body).toMatchObject({
      title: "Invalid state",
      status: 409,
      detail: "callback is delivered; only failed callbacks can be retried",
    });
    receiver.answer(500);
    await worker.pause();
    const pending = await decide();
    const res = await h.as().post(`/v1/callbacks/${pending}/retry`).expect(409);
    expect(res.body.detail).toBe("callback is pending; only failed callbacks can be retried");
    worker.resume();
    const unknown = await h.as().post("/v1/callbacks/cbk_NOPE/retry").expect(404);
    expect(unknown.body).toMatchObject({ title: "Not found", detail: "no callback 'cbk_NOPE'" });
  });
});

describe("listing", () => {
  it("pages newest first with a cursor", async () => {
    const all = (await h.as().get("/v1/callbacks").expect(200)).body.items as {
      id: string;
      created_at: string;
    }[];
    expect(all.length).toBeGreaterThanOrEqual(2);
    const first = await h.as().get("/v1/callbacks").query({ limit: 1 }).expect(200);
    expect(first.body.items.map((c: { id: string }) => c.id)).toEqual([all[0]!.id]);
    const second = await h
      .as()
      .get("/v1/callbacks")
      .query({ limit: 1, cursor: first.body.next_cursor })
      .expect(200);
    expect(second.body.items.map((c: { id: string }) => c.id)).toEqual([all[1]!.id]);
  });

  it("refuses an unknown status with 422 naming the parameter", async () => {
    const res = await h.as().get("/v1/callbacks").query({ status: "lost" }).expect(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ["query", "status"], type: "enum" })]);
  });
});
