import { parseConfig } from "@svc/config";
import { AppError, newId, type Principal } from "@svc/core";
import { createLogCapture, createLogger } from "@svc/log";
import { createQueues, type Queues } from "@svc/queue";
import { Prisma } from "@svc/store";
import {
  createTestDatabase,
  testRedisPrefix,
  webhookEventsIn,
  type TestDatabase,
  type TestRedisPrefix,
} from "@svc/testkit";
import { agentsResource } from "../../agents/agent-crud";
import { createApiKey } from "../../api-keys/create-api-key";
import { cancelMessage } from "../cancel-message";
import { getMessage } from "../get-message";
import { listMessages } from "../list-messages";
import { sendMessage, type SendMessageDeps, type SendMessageInput } from "../send-message";

// Direct sends and the message log, called as the API calls them (docs/messages.md): the policy
// decides before the answer under the person's lock, idempotency keys name one message per sender
// for 7 days, and the read/cancel use cases keep agent keys to their own messages.

const NOW = new Date("2024-01-15T12:00:00.000Z"); // Monday noon UTC: outside the default quiet hours
const DAY_MS = 86_400_000;

let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
let deps: SendMessageDeps;
let clock: Date;
let backend: Principal;
let agent: Principal;
let otherAgent: Principal;

beforeAll(async () => {
  db = await createTestDatabase("engine_messages");
  redis = testRedisPrefix("engine_messages");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  deps = {
    prisma: db.prisma,
    config: parseConfig({ channels: { email: { provider: "console" }, sms: { provider: "console" } } }, {}),
    logger: createLogger({ service: "messages-test", level: "error", stream: createLogCapture().stream }),
    now: () => clock,
    queues,
  };
  clock = NOW;
  await db.prisma.template.create({
    data: {
      key: "hello",
      locales: { en: { title: "Hi {{ recipient.external_id }}", body: "{{ data.msg }}" } },
    },
  });
  backend = await principalOf(["admin"], null);
  agent = await principalOf(["messages:write", "messages:read"], "owner", ["transactional"]);
  otherAgent = await principalOf(["messages:write", "messages:read"], "intruder");
});
afterAll(async () => {
  await queues.close();
  await redis.cleanup();
  await db.drop();
});
beforeEach(() => {
  clock = NOW;
});

async function principalOf(
  scopes: Principal["scopes"],
  agentKey: string | null,
  categories?: string[],
): Promise<Principal> {
  if (agentKey)
    await agentsResource({ prisma: db.prisma, now: () => NOW }).create(
      agentKey,
      { name: agentKey, ...(categories ? { categories } : {}) },
      NOW,
    );
  const key = await createApiKey(
    { prisma: db.prisma, now: () => NOW },
    { name: `key of ${agentKey ?? "backend"}`, scopes: [...scopes], agent: agentKey },
  );
  return { keyId: key.id, keyName: `key of ${agentKey ?? "backend"}`, scopes, agentKey };
}

let people = 0;
async function person(fields: Partial<Prisma.RecipientCreateInput> = {}): Promise<string> {
  const externalId = `person-${++people}`;
  await db.prisma.recipient.create({
    data: {
      id: newId("recipient"),
      external_id: externalId,
      ...fields,
      addresses: { create: [{ channel: "email", value: `${externalId}@example.com` }] },
    },
  });
  return externalId;
}

const body = (recipient: string, extra: Partial<SendMessageInput> = {}): SendMessageInput => ({
  recipient,
  template: "hello",
  category: "transactional",
  channels: ["email"],
  data: { msg: "hello" },
  ...extra,
});

const send = (principal: Principal, input: SendMessageInput) => sendMessage(deps, principal, input);
const messagesOf = (recipient: string) =>
  db.prisma.message.findMany({ where: { recipient_external_id: recipient }, orderBy: { id: "asc" } });
const deliveryJob = (messageId: string, generation = 0) =>
  queues.queue("delivery").getJob(`${messageId}-${generation}`);

/** The error a promise rejects with (fails the test when it resolves). */
async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("sendMessage", () => {
  test("decided before the answer: queued now, the row written, its delivery job enqueued", async () => {
    const recipient = await person();
    const { created, message } = await send(backend, body(recipient, { importance: "high" }));
    expect(created).toBe(true);
    expect(message).toEqual({
      id: expect.stringMatching(/^msg_[0-9A-Z]{26}$/),
      status: "queued",
      status_reason: null,
      recipient,
      agent: null,
      category: "transactional",
      template: "hello",
      rule: null,
      event_id: null,
      broadcast_id: null,
      digest_id: null,
      importance: "high",
      claimed_importance: "high",
      channels: ["email"],
      channel: null,
      content: {
        title: `Hi ${recipient}`,
        body: "hello",
        url: null,
        thread: null,
        locale: "en",
        channel: "email",
      },
      data: { msg: "hello" },
      send_at: NOW.toISOString(),
      expires_at: null,
      approval_expires_at: null,
      reviewed_by: null,
      reviewed_by_key_id: null,
      reviewed_at: null,
      screening: null,
      created_at: NOW.toISOString(),
      updated_at: NOW.toISOString(),
      sent_at: null,
      delivered_at: null,
      attempts: [],
      engagement: { opened_at: null, clicked_at: null, converted_at: null },
    });
    const [row] = await messagesOf(recipient);
    expect(row).toMatchObject({
      id: message.id,
      sender: "backend",
      api_key_id: backend.keyId,
      idempotency_key: null,
      request_hash: null,
      generation: 0,
    });
    const job = await deliveryJob(message.id);
    expect(job?.name).toBe("deliver-message");
    expect(job?.data).toEqual({ messageId: message.id, generation: 0 });
    expect(await webhookEventsIn(db.prisma, message.id)).toEqual([
      {
        type: "message.queued",
        occurred_at: NOW.toISOString(),
        subject: { kind: "message", id: message.id },
        snapshot: { status: "queued", status_reason: null },
      },
    ]);
  });

  test("suppressed by the policy (unsubscribed, or expires_at already passed): stored, no delivery job", async () => {
    const leftMarketing = await person({ unsubscribed_categories: ["marketing"] });
    const unsubscribed = await send(backend, body(leftMarketing, { category: "marketing" }));
    expect(unsubscribed).toMatchObject({
      created: true,
      message: { status: "suppressed", status_reason: "unsubscribed" },
    });
    const late = await send(
      backend,
      body(await person(), { expires_at: new Date(NOW.getTime() - 1000).toISOString() }),
    );
    expect(late.message).toMatchObject({
      status: "suppressed",
      status_reason: "expired",
      expires_at: "2024-01-15T11:59:59.000Z",
    });
    for (const { message } of [unsubscribed, late]) {
      expect(await deliveryJob(message.id)).toBeUndefined();
      expect((await db.prisma.message.findUniqueOrThrow({ where: { id: message.id } })).status).toBe(
        "suppressed",
      );
    }
  });

  test("unknown recipient, template and category: one 422 naming each field; nothing written", async () => {
    const before = await db.prisma.message.count();
    const error = await refusal(send(backend, { ...body("nobody"), template: "nope", category: "nada" }));
    expect(error).toMatchObject({ code: "validation", status: 422 });
    expect(error.errors).toEqual([
      { loc: ["body", "recipient"], msg: "no recipient 'nobody'", type: "not_found" },
      { loc: ["body", "template"], msg: "no template 'nope'", type: "not_found" },
      { loc: ["body", "category"], msg: "no category 'nada'", type: "not_found" },
    ]);
    // The idempotent path (decided alone) refuses the same way.
    const keyed = await refusal(send(backend, { ...body("nobody"), idempotency_key: "ghost" }));
    expect(keyed.errors).toEqual([
      { loc: ["body", "recipient"], msg: "no recipient 'nobody'", type: "not_found" },
    ]);
    expect(await db.prisma.message.count()).toBe(before);
  });

  test("an agent key outside its agent's categories is 403 and writes nothing", async () => {
    const recipient = await person();
    const error = await refusal(send(agent, body(recipient, { category: "marketing" })));
    expect(error).toMatchObject({ code: "forbidden", status: 403 });
    expect(await messagesOf(recipient)).toEqual([]);
    const allowed = await send(agent, body(recipient));
    expect(allowed.message).toMatchObject({ status: "queued", agent: "owner" });
    expect((await messagesOf(recipient)).map((m) => m.sender)).toEqual(["owner"]);
  });
});

describe("idempotency", () => {
  test("same key and body: the original (created false), no second row; another body: 409 conflict", async () => {
    const recipient = await person();
    const first = await send(backend, body(recipient, { idempotency_key: "order-1" }));
    expect(first.created).toBe(true);
    // An explicit default and `data` given in another key order are the same body.
    const repeat = await send(backend, {
      importance: "normal",
      ...body(recipient, { idempotency_key: "order-1" }),
    });
    expect(repeat).toEqual({ created: false, message: first.message });
    const conflict = await refusal(
      send(backend, body(recipient, { idempotency_key: "order-1", data: { msg: "other" } })),
    );
    expect(conflict).toMatchObject({ code: "conflict", status: 409 });
    const elsewhere = await refusal(send(backend, body(await person(), { idempotency_key: "order-1" })));
    expect(elsewhere.code).toBe("conflict");
    const rows = await messagesOf(recipient);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: first.message.id,
      idempotency_key: "order-1",
      request_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      idempotency_expires_at: new Date(NOW.getTime() + 7 * DAY_MS),
    });
  });

  test("a repeat answers the message as it is now, and only repairs a lost delivery job", async () => {
    const recipient = await person();
    const first = await send(backend, body(recipient, { idempotency_key: "order-2" }));
    const job = await deliveryJob(first.message.id);
    await job!.remove();
    clock = new Date(NOW.getTime() + 60_000);
    await cancelMessage(deps, backend, first.message.id);
    const repeat = await send(backend, body(recipient, { idempotency_key: "order-2" }));
    expect(repeat.created).toBe(false);
    expect(repeat.message).toMatchObject({ id: first.message.id, status: "cancelled" });
    // Not queued any more: nothing to repair.
    expect(await deliveryJob(first.message.id)).toBeUndefined();

    const other = await send(backend, body(recipient, { idempotency_key: "order-3" }));
    await (await deliveryJob(other.message.id))!.remove();
    await send(backend, body(recipient, { idempotency_key: "order-3" }));
    expect((await deliveryJob(other.message.id))?.data).toEqual({
      messageId: other.message.id,
      generation: 0,
    });
  });

  test("keys are per sender, and released after 7 days: the same key then names a new message", async () => {
    const recipient = await person();
    const fromBackend = await send(backend, body(recipient, { idempotency_key: "shared" }));
    const fromAgent = await send(agent, body(recipient, { idempotency_key: "shared" }));
    expect(fromAgent.created).toBe(true);
    expect(fromAgent.message.id).not.toBe(fromBackend.message.id);

    clock = new Date(NOW.getTime() + 7 * DAY_MS - 1);
    expect((await send(backend, body(recipient, { idempotency_key: "shared" }))).created).toBe(false);
    clock = new Date(NOW.getTime() + 7 * DAY_MS);
    // Even another body: the old request is forgotten.
    const later = await send(backend, body(recipient, { idempotency_key: "shared", data: { msg: "again" } }));
    expect(later.created).toBe(true);
    expect(later.message.id).not.toBe(fromBackend.message.id);
    const old = await db.prisma.message.findUniqueOrThrow({ where: { id: fromBackend.message.id } });
    expect(old).toMatchObject({ idempotency_key: null, idempotency_expires_at: null });
    expect(await db.prisma.message.count({ where: { sender: "backend", idempotency_key: "shared" } })).toBe(
      1,
    );
  });

  test("8 concurrent sends with one key: exactly one message, one created, all answering its id", async () => {
    const recipient = await person();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => send(backend, body(recipient, { idempotency_key: "burst" }))),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.message.id)).size).toBe(1);
    expect(await messagesOf(recipient)).toHaveLength(1);
  });
});

test("concurrent sends are batched yet decided per person in turn: the cap holds exactly, a bad send fails alone", async () => {
  const recipient = await person();
  const elsewhere = await Promise.all([person(), person()]);
  // Sent in the same tick as the others, so it joins their batch.
  const ghost = send(backend, body("nobody-here")).then(
    () => null,
    (e: unknown) => e,
  );
  const results = await Promise.all([
    ...Array.from({ length: 6 }, () => send(backend, body(recipient, { category: "marketing" }))),
    ...elsewhere.map((other) => send(backend, body(other, { category: "marketing" }))),
  ]);
  const mine = results.slice(0, 6).map((r) => `${r.message.status} ${r.message.status_reason}`);
  expect(mine.sort()).toEqual([
    "queued null",
    "queued null",
    "suppressed frequency_cap: 2 per P1D",
    "suppressed frequency_cap: 2 per P1D",
    "suppressed frequency_cap: 2 per P1D",
    "suppressed frequency_cap: 2 per P1D",
  ]);
  expect(results.slice(6).map((r) => r.message.status)).toEqual(["queued", "queued"]);
  expect(await ghost).toMatchObject({ code: "validation", status: 422 });
  // Every queued message has a delivery job (alone, or shared by its batch).
  const jobs = await queues.queue("delivery").getJobs(["waiting", "delayed", "prioritized"]);
  const enqueued = new Set(
    jobs.flatMap((job) =>
      job.name === "deliver-messages"
        ? (job.data as { messages: { messageId: string }[] }).messages.map((m) => m.messageId)
        : [(job.data as { messageId: string }).messageId],
    ),
  );
  for (const { message } of results.filter((r) => r.message.status === "queued"))
    expect(enqueued.has(message.id)).toBe(true);
});

describe("reading and cancelling", () => {
  test("getMessage: 404 for an unknown id; an agent key reaches only its own messages", async () => {
    const recipient = await person();
    const mine = (await send(agent, body(recipient))).message;
    const theirs = (await send(backend, body(recipient))).message;
    expect(await getMessage(deps, agent, mine.id)).toEqual(mine);
    expect(await getMessage(deps, backend, mine.id)).toEqual(mine);
    expect(await refusal(getMessage(deps, backend, "msg_NOPE"))).toMatchObject({
      code: "not_found",
      status: 404,
    });
    expect(await refusal(getMessage(deps, otherAgent, mine.id))).toMatchObject({ code: "forbidden" });
    expect(await refusal(getMessage(deps, agent, theirs.id))).toMatchObject({ code: "forbidden" });
  });

  test("listMessages: newest first, filters combine, pages by cursor without repeats", async () => {
    const recipient = await person();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      clock = new Date(NOW.getTime() + i * 1000);
      ids.push(
        (await send(i === 2 ? agent : backend, body(recipient, i === 3 ? { channels: ["sms"] } : {}))).message
          .id,
      );
    }
    const listed = async (principal: Principal, query: Parameters<typeof listMessages>[2]) =>
      (await listMessages(deps, principal, query)).items.map((m) => m.id);
    expect(await listed(backend, { recipient })).toEqual([...ids].reverse());
    // No sms address: suppressed at composition (no_reachable_channel).
    expect(await listed(backend, { recipient, status: "suppressed" })).toEqual([ids[3]]);
    expect(await listed(backend, { recipient, agent: "owner" })).toEqual([ids[2]]);
    expect(await listed(backend, { recipient: "nobody-at-all" })).toEqual([]);
    // An agent key sees only its own, whatever agent it asks for.
    expect(await listed(agent, { recipient })).toEqual([ids[2]]);
    expect(await listed(agent, { recipient, agent: "intruder" })).toEqual([]);

    const first = await listMessages(deps, backend, { recipient, limit: 3 });
    expect(first.items.map((m) => m.id)).toEqual([ids[3], ids[2], ids[1]]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await listMessages(deps, backend, { recipient, limit: 3, cursor: first.next_cursor! });
    expect(second).toEqual({ items: [expect.objectContaining({ id: ids[0] })], next_cursor: null });
    expect(await refusal(listMessages(deps, backend, { cursor: "not-a-cursor" }))).toMatchObject({
      code: "validation",
      status: 422,
    });
  });

  test("cancelMessage: queued → cancelled via API with its webhook event; again is 409 Invalid state", async () => {
    const recipient = await person();
    const { message } = await send(agent, body(recipient));
    expect(await refusal(cancelMessage(deps, otherAgent, message.id))).toMatchObject({ code: "forbidden" });
    expect(await refusal(cancelMessage(deps, backend, "msg_NOPE"))).toMatchObject({ code: "not_found" });
    clock = new Date(NOW.getTime() + 5_000);
    const cancelled = await cancelMessage(deps, agent, message.id);
    expect(cancelled).toMatchObject({
      id: message.id,
      status: "cancelled",
      status_reason: "cancelled via API",
      updated_at: clock.toISOString(),
    });
    expect(await db.prisma.message.findUniqueOrThrow({ where: { id: message.id } })).toMatchObject({
      status: "cancelled",
      status_reason: "cancelled via API",
    });
    expect((await webhookEventsIn(db.prisma, message.id)).map((e) => [e.type, e.snapshot])).toEqual([
      ["message.queued", { status: "queued", status_reason: null }],
      ["message.cancelled", { status: "cancelled", status_reason: "cancelled via API" }],
    ]);
    const again = await refusal(cancelMessage(deps, agent, message.id));
    expect(again).toMatchObject({ code: "invalid_state", status: 409, title: "Invalid state" });
    expect(await webhookEventsIn(db.prisma, message.id)).toHaveLength(2);
  });

  test("concurrent cancels of one message: exactly one wins, the others are 409", async () => {
    const { message } = await send(backend, body(await person()));
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => cancelMessage(deps, backend, message.id)),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    for (const o of outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected"))
      expect(o.reason).toMatchObject({ code: "invalid_state", status: 409 });
    expect(
      (await webhookEventsIn(db.prisma, message.id)).filter((e) => e.type === "message.cancelled"),
    ).toHaveLength(1);
  });
});
