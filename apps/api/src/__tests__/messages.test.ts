// Direct sends, reads and cancel over HTTP against a real Postgres and Redis, including the races
// the recipient lock and the idempotency constraint must win.
import { newId } from "@svc/core";
import { Prisma } from "@svc/store";
import { startHarness, type Harness } from "./service-harness";

const NOW = new Date("2024-01-15T12:00:00Z"); // Monday noon UTC: outside the default quiet hours

let h: Harness;
let backendKey: string;
let readKey: string;
beforeAll(async () => {
  h = await startHarness("messages_api", {
    now: () => NOW,
    config: { channels: { email: { provider: "console" }, sms: { provider: "console" } } },
  });
  backendKey = await h.keyWith(["messages:write", "messages:read"]);
  readKey = await h.keyWith(["messages:read"]);
  await h.prisma.template.create({
    data: {
      key: "hello",
      locales: { en: { title: "Hi {{ recipient.external_id }}", body: "{{ data.msg }}" } },
    },
  });
}, 60_000);
afterAll(() => h.close());

let people = 0;
async function person(fields: Partial<Prisma.RecipientCreateInput> = {}): Promise<string> {
  const externalId = `person-${++people}`;
  await h.prisma.recipient.create({
    data: {
      id: newId("recipient"),
      external_id: externalId,
      ...fields,
      addresses: { create: [{ channel: "email", value: `${externalId}@example.com` }] },
    },
  });
  return externalId;
}

const send = (key: string, body: Record<string, unknown>) => h.as(key).post("/v1/messages").send(body);
const body = (recipient: string, extra: Record<string, unknown> = {}) => ({
  recipient,
  template: "hello",
  category: "transactional",
  channels: ["email"],
  data: { msg: "hello" },
  ...extra,
});

describe("POST /v1/messages", () => {
  test("202 with the decided message; the delivery job waits for send_at", async () => {
    const recipient = await person();
    const res = await send(backendKey, body(recipient, { importance: "high" })).expect(202);
    expect(res.body).toEqual({
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
    const job = await h.queues.queue("delivery").getJob(`${res.body.id}-0`);
    expect(job?.name).toBe("deliver-message");
    expect(job?.data).toEqual({ messageId: res.body.id, generation: 0 });
    const row = await h.prisma.message.findUniqueOrThrow({ where: { id: res.body.id } });
    expect(row).toMatchObject({ sender: "backend", api_key_id: h.keyIdOf(backendKey), request_hash: null });
  });

  test("a suppressed message is 202 too, and no delivery job is enqueued", async () => {
    const recipient = await person({ unsubscribed_categories: ["marketing"] });
    const res = await send(backendKey, body(recipient, { category: "marketing" })).expect(202);
    expect(res.body).toMatchObject({ status: "suppressed", status_reason: "unsubscribed" });
    expect(await h.queues.queue("delivery").getJob(`${res.body.id}-0`)).toBeUndefined();
  });

  test("expires_at is kept; quiet hours pushing past it suppress as expired", async () => {
    const recipient = await person({ quiet_hours: { start: "11:00", end: "13:00" } });
    const res = await send(
      backendKey,
      body(recipient, { category: "marketing", expires_at: "2024-01-15T12:30:00Z" }),
    ).expect(202);
    expect(res.body).toMatchObject({
      status: "suppressed",
      status_reason: "expired",
      expires_at: "2024-01-15T12:30:00.000Z",
    });
  });

  test("unknown recipient, template and category: 422 naming each", async () => {
    const res = await send(backendKey, { ...body("nobody"), template: "nope", category: "nada" }).expect(422);
    expect(res.body.errors).toEqual([
      { loc: ["body", "recipient"], msg: "no recipient 'nobody'", type: "not_found" },
      { loc: ["body", "template"], msg: "no template 'nope'", type: "not_found" },
      { loc: ["body", "category"], msg: "no category 'nada'", type: "not_found" },
    ]);
  });

  test("unknown fields and inline profiles are refused by the document", async () => {
    const res = await send(backendKey, { ...body("x"), recipient: { external_id: "x" }, extra: 1 }).expect(
      422,
    );
    expect(res.body.errors.map((e: { loc: unknown[] }) => e.loc)).toEqual(
      expect.arrayContaining([
        ["body", "recipient"],
        ["body", "extra"],
      ]),
    );
  });

  test("a read-only key cannot send (403)", async () => {
    await send(readKey, body(await person())).expect(403);
  });
});

describe("idempotency", () => {
  test("a repeat with the same body is 200 with the original; another body is 409", async () => {
    const recipient = await person();
    const first = await send(backendKey, body(recipient, { idempotency_key: "order-1" })).expect(202);
    // Key order and an explicit default do not make another body.
    const repeat = await send(backendKey, {
      importance: "normal",
      ...body(recipient, { idempotency_key: "order-1" }),
    }).expect(200);
    expect(repeat.body).toEqual(first.body);
    const conflict = await send(
      backendKey,
      body(recipient, { idempotency_key: "order-1", data: { msg: "other" } }),
    ).expect(409);
    expect(conflict.body).toMatchObject({ title: "Conflict", status: 409 });
    expect(conflict.body.detail).toContain(
      "idempotency_key 'order-1' was already used with a different request body",
    );
  });

  test("10 concurrent sends with one key: one message, one 202 and nine 200, all with its id", async () => {
    const recipient = await person();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => send(backendKey, body(recipient, { idempotency_key: "burst" }))),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 202]);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect(await h.prisma.message.count({ where: { recipient_external_id: recipient } })).toBe(1);
  });
});

describe("policy races", () => {
  test("20 concurrent marketing sends to one person: exactly 2 queued, 18 frequency_cap", async () => {
    const recipient = await person();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => send(backendKey, body(recipient, { category: "marketing" }))),
    );
    expect(responses.every((r) => r.status === 202)).toBe(true);
    const outcomes = responses.map((r) => `${r.body.status} ${r.body.status_reason}`);
    expect(outcomes.filter((o) => o === "queued null")).toHaveLength(2);
    expect(outcomes.filter((o) => o === "suppressed frequency_cap: 2 per P1D")).toHaveLength(18);
  }, 30_000);
});

describe("agents", () => {
  test("category outside the agent's list: 403", async () => {
    await h.prisma.agent.create({ data: { key: "narrow", name: "Narrow", categories: ["transactional"] } });
    const key = await h.keyWith(["messages:write"], "narrow");
    const res = await send(key, body(await person(), { category: "marketing" })).expect(403);
    expect(res.body.detail).toBe("agent 'narrow' may not send in category 'marketing'");
  });

  test("budget of 5 per P1D per person; the claim above max_importance is lowered", async () => {
    const key = await h.keyWith(["messages:write", "messages:read"], "budgeted");
    const recipient = await person();
    const results = [];
    for (let i = 0; i < 6; i++)
      results.push((await send(key, body(recipient, { importance: "critical" })).expect(202)).body);
    expect(results.slice(0, 5).map((m) => m.status)).toEqual([
      "queued",
      "queued",
      "queued",
      "queued",
      "queued",
    ]);
    expect(results[5]).toMatchObject({ status: "suppressed", status_reason: "agent_budget: 5 per P1D" });
    expect(results[0]).toMatchObject({
      agent: "budgeted",
      importance: "high",
      claimed_importance: "critical",
    });
  });

  test("idempotency keys are per sender: the backend's key is not the agent's", async () => {
    const key = await h.keyWith(["messages:write"], "keyed");
    const recipient = await person();
    const fromBackend = await send(backendKey, body(recipient, { idempotency_key: "shared" })).expect(202);
    const fromAgent = await send(key, body(recipient, { idempotency_key: "shared" })).expect(202);
    expect(fromAgent.body.id).not.toBe(fromBackend.body.id);
  });
});

describe("GET and cancel", () => {
  let agentKey: string;
  let otherAgentKey: string;
  let agentMessage: string;
  let backendMessage: string;
  beforeAll(async () => {
    agentKey = await h.keyWith(["messages:write", "messages:read"], "owner");
    otherAgentKey = await h.keyWith(["messages:write", "messages:read"], "intruder");
    const recipient = await person();
    agentMessage = (await send(agentKey, body(recipient)).expect(202)).body.id;
    backendMessage = (await send(backendKey, body(recipient)).expect(202)).body.id;
  });

  test("agent keys read their own messages; others' are 403; the backend reads all", async () => {
    await h.as(agentKey).get(`/v1/messages/${agentMessage}`).expect(200);
    await h.as(otherAgentKey).get(`/v1/messages/${agentMessage}`).expect(403);
    await h.as(agentKey).get(`/v1/messages/${backendMessage}`).expect(403);
    const read = await h.as(readKey).get(`/v1/messages/${agentMessage}`).expect(200);
    expect(read.body).toMatchObject({ id: agentMessage, agent: "owner" });
    await h.as(readKey).get("/v1/messages/msg_NOPE").expect(404);
  });

  test("agent keys cannot cancel others' messages", async () => {
    await h.as(otherAgentKey).post(`/v1/messages/${agentMessage}/cancel`).expect(403);
    expect((await h.prisma.message.findUniqueOrThrow({ where: { id: agentMessage } })).status).toBe("queued");
  });

  test("cancel a queued message: 200 cancelled via API, then 409 Invalid state", async () => {
    const res = await h.as(agentKey).post(`/v1/messages/${agentMessage}/cancel`).expect(200);
    expect(res.body).toMatchObject({
      id: agentMessage,
      status: "cancelled",
      status_reason: "cancelled via API",
    });
    const again = await h.as(agentKey).post(`/v1/messages/${agentMessage}/cancel`).expect(409);
    expect(again.body).toMatchObject({
      title: "Invalid state",
      detail: "message is cancelled; only queued messages can be cancelled",
    });
  });

  test("cancel needs messages:write", async () => {
    await h.as(readKey).post(`/v1/messages/${backendMessage}/cancel`).expect(403);
  });
});

describe("GET /v1/messages", () => {
  let recipient: string;
  const ids: string[] = [];
  beforeAll(async () => {
    recipient = await person();
    const agentKey = await h.keyWith(["messages:write"], "lister");
    for (let i = 0; i < 3; i++) ids.push((await send(backendKey, body(recipient)).expect(202)).body.id);
    ids.push((await send(agentKey, body(recipient)).expect(202)).body.id);
    ids.push((await send(backendKey, body(recipient, { channels: ["sms"] })).expect(202)).body.id); // no sms address
    await h.prisma.message.updateMany({
      where: { id: ids[0] },
      data: { event_id: "evt_listed", broadcast_id: "brd_listed" },
    });
  });

  const listed = async (query: string, key = readKey) =>
    (await h.as(key).get(`/v1/messages?${query}`).expect(200)).body.items.map((m: { id: string }) => m.id);

  test.each([
    ["recipient", () => `recipient=${recipient}`, () => [...ids].reverse()],
    ["recipient and status", () => `recipient=${recipient}&status=suppressed`, () => [ids[4]]],
    ["agent", () => `recipient=${recipient}&agent=lister`, () => [ids[3]]],
    ["event_id", () => "event_id=evt_listed", () => [ids[0]]],
    ["broadcast_id", () => "broadcast_id=brd_listed", () => [ids[0]]],
    ["unknown recipient", () => "recipient=nobody-at-all", () => []],
  ])("filter by %s, newest first", async (_name, query, expected) => {
    expect(await listed(query())).toEqual(expected());
  });

  test("pages with limit and cursor", async () => {
    const first = (await h.as(readKey).get(`/v1/messages?recipient=${recipient}&limit=2`).expect(200)).body;
    expect(first.items.map((m: { id: string }) => m.id)).toEqual([ids[4], ids[3]]);
    const second = (
      await h
        .as(readKey)
        .get(`/v1/messages?recipient=${recipient}&limit=2&cursor=${first.next_cursor}`)
        .expect(200)
    ).body;
    expect(second.items.map((m: { id: string }) => m.id)).toEqual([ids[2], ids[1]]);
    const third = (
      await h
        .as(readKey)
        .get(`/v1/messages?recipient=${recipient}&limit=2&cursor=${second.next_cursor}`)
        .expect(200)
    ).body;
    expect(third).toEqual({ items: [expect.objectContaining({ id: ids[0] })], next_cursor: null });
  });

  test("agent keys list only their own, whatever agent they ask for", async () => {
    const key = await h.keyWith(["messages:read"], "lister");
    expect(await listed(`recipient=${recipient}`, key)).toEqual([ids[3]]);
    expect(await listed(`recipient=${recipient}&agent=owner`, key)).toEqual([]);
  });

  test.each([
    ["status=lost", "status", "enum"],
    ["recipient=", "recipient", "min_length"],
    ["recipient=%00x", "recipient", "pattern"],
  ])("bad filter %s: 422 problem+json naming the parameter", async (query, name, type) => {
    const res = await h.as(readKey).get(`/v1/messages?${query}`).expect(422);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 422, instance: "/v1/messages" });
    expect(res.body.detail).toContain(`query.${name}`);
    expect(res.body.errors).toContainEqual(expect.objectContaining({ loc: ["query", name], type }));
  });
});
