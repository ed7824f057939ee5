import { ingestEvent } from "@svc/engine";
import { Prisma } from "@svc/store";
import { startHarness, type Harness } from "./service-harness";

// POST /v1/events/batch through the whole API (real Postgres and Redis): one result per item, in
// order, each what POST /v1/events would have answered for it.

let h: Harness;
let writer: string;

beforeAll(async () => {
  h = await startHarness("events_batch_api", {
    config: {
      channels: { email: { provider: "console" } },
      api: { max_body_bytes: 64 * 1024 },
      approvals: { max_pending_per_agent: 1 },
    },
  });
  writer = await h.keyWith(["events:write", "messages:read"]);
  await h.prisma.template.create({
    data: { key: "tpl", locales: { en: { title: "t", body: "b" } } as Prisma.InputJsonValue },
  });
  await h.prisma.recipient.create({
    data: {
      id: "rcp_ann",
      external_id: "ann",
      locale: "en",
      addresses: { create: [{ channel: "email", value: "ann@example.com" }] },
    },
  });
});
afterAll(() => h.close());

const batch = (key: string, events: unknown[]) => h.as(key).post("/v1/events/batch").send({ events });
const ingest = (id: string) => ingestEvent({ prisma: h.prisma, config: h.config, now: () => new Date() }, id);

describe("POST /v1/events/batch", () => {
  it("answers 207 with one result per item in order: new, repeated and refused items side by side", async () => {
    const res = await batch(writer, [
      { name: "mixed.one", recipient: "ann", data: { n: 1 } },
      { name: "mixed.two", recipient: "ann", extra: true },
      { name: "mixed.three", recipient: "ann", idempotency_key: "mixed-3" },
      { name: "svc.reserved", recipient: "ann" },
      { name: "mixed.four", recipient: "" },
      { recipient: "ann" },
      { name: "has space", recipient: "ann" },
      { name: "mixed.five", recipient: "ann", data: { text: "a\u0000b" } },
      { name: "mixed.six", recipient: "ann" },
    ]).expect(207);

    expect(res.body).toMatchObject({ accepted: 3, duplicates: 0, failed: 6 });
    const statuses = res.body.results.map((r: { status: number }) => r.status);
    expect(statuses).toEqual([202, 422, 202, 403, 422, 422, 422, 422, 202]);
    const [one, extra, three, reserved, emptyRecipient, noName, badName, nul, six] = res.body.results;
    expect(one.event).toMatchObject({
      name: "mixed.one",
      status: "pending",
      data: { n: 1 },
      duplicate: false,
    });
    expect(three.event).toMatchObject({ name: "mixed.three", idempotency_key: "mixed-3" });
    expect(six.event.name).toBe("mixed.six");
    expect(extra.problem).toEqual({
      type: "about:blank",
      title: "Unprocessable content",
      status: 422,
      detail: "Request validation failed: body.events.1.extra: unknown field",
      instance: "/v1/events/batch",
      errors: [{ loc: ["body", "events", 1, "extra"], msg: "unknown field", type: "additional_properties" }],
    });
    expect(reserved.problem).toMatchObject({
      status: 403,
      title: "Forbidden",
      detail: "event names starting 'svc.' are reserved for the service",
    });
    expect(emptyRecipient.problem.errors[0].loc.slice(0, 4)).toEqual(["body", "events", 4, "recipient"]);
    expect(noName.problem.errors).toEqual([
      { loc: ["body", "events", 5, "name"], msg: "is required", type: "missing" },
    ]);
    expect(badName.problem.errors[0].loc).toEqual(["body", "events", 6, "name"]);
    expect(nul.problem.errors).toEqual([
      {
        loc: ["body", "events", 7, "data", "text"],
        msg: "contains the character \\u0000, which cannot be stored",
        type: "value_error",
      },
    ]);

    // Exactly the accepted items are stored, each with its own id, and they are processed as usual.
    const stored = await h.prisma.event.findMany({ where: { name: { startsWith: "mixed." } } });
    expect(stored.map((e) => e.id).sort()).toEqual([one.event.id, three.event.id, six.event.id].sort());
    await h
      .as(writer)
      .get(`/v1/events/${one.event.id as string}`)
      .expect(200);
  });

  it("keeps idempotency per item, within a batch and across batches (and with POST /v1/events)", async () => {
    const item = { name: "idem.batch", recipient: "ann", data: { a: 1 }, idempotency_key: "idem-1" };
    const first = await batch(writer, [
      item,
      { ...item, data: { a: 2 } },
      { ...item }, // the same key and body again inside the batch
      { name: "idem.batch", recipient: "ann", idempotency_key: "idem-2" },
    ]).expect(207);
    expect(first.body.results.map((r: { status: number }) => r.status)).toEqual([202, 409, 200, 202]);
    const original = first.body.results[0].event;
    expect(first.body.results[1].problem.detail).toBe(
      "idempotency_key 'idem-1' was already used with a different request body",
    );
    expect(first.body.results[2].event).toEqual({ ...original, duplicate: true });
    expect(first.body).toMatchObject({ accepted: 2, duplicates: 1, failed: 1 });

    // Across batches: key order in the body does not matter; a different body is 409.
    const again = await batch(writer, [
      { idempotency_key: "idem-1", data: { a: 1 }, recipient: "ann", name: "idem.batch" },
      { name: "idem.batch", recipient: "ann", idempotency_key: "idem-2", data: { x: 1 } },
      { name: "idem.batch", recipient: "ann", idempotency_key: "idem-3" },
    ]).expect(207);
    expect(again.body.results.map((r: { status: number }) => r.status)).toEqual([200, 409, 202]);
    expect(again.body.results[0].event).toEqual({ ...original, duplicate: true });

    // The single endpoint shares the keys: it answers the batch's event, and the batch answers its.
    const single = await h.as(writer).post("/v1/events").send(item).expect(200);
    expect(single.body.id).toBe(original.id);
    const alone = await h
      .as(writer)
      .post("/v1/events")
      .send({ name: "idem.single", recipient: "ann", idempotency_key: "idem-4" })
      .expect(202);
    const fromBatch = await batch(writer, [
      { name: "idem.single", recipient: "ann", idempotency_key: "idem-4" },
    ]).expect(207);
    expect(fromBatch.body.results[0]).toEqual({ status: 200, event: { ...alone.body, duplicate: true } });
    expect(await h.prisma.event.count({ where: { name: { startsWith: "idem." } } })).toBe(4);
  });

  it("answers a replay with the event as it is now (processed, with outcomes)", async () => {
    const item = { name: "idem.processed", recipient: "ann", idempotency_key: "idem-p" };
    const first = await batch(writer, [item]).expect(207);
    await ingest(first.body.results[0].event.id);
    const again = await batch(writer, [item]).expect(207);
    expect(again.body.results[0]).toMatchObject({
      status: 200,
      event: { id: first.body.results[0].event.id, status: "processed", duplicate: true },
    });
  });

  it("racing batches with the same keys store each event once", async () => {
    const items = Array.from({ length: 20 }, (_, i) => ({
      name: "race.batch",
      recipient: "ann",
      idempotency_key: `race-${i}`,
    }));
    const responses = await Promise.all(Array.from({ length: 5 }, () => batch(writer, items)));
    const fresh = responses.flatMap((r) =>
      (r.body.results as { status: number }[]).filter((x) => x.status === 202),
    );
    expect(fresh).toHaveLength(20);
    expect(responses.every((r) => r.status === 207)).toBe(true);
    expect(await h.prisma.event.count({ where: { name: "race.batch" } })).toBe(20);
  });

  it("applies an agent key's limits to every item", async () => {
    await h
      .as()
      .put("/v1/agents/batchbot")
      .send({
        name: "Batch bot",
        categories: ["transactional"],
        frequency_caps: [{ period: "P1D", limit: 2 }],
        max_importance: "normal",
        reviewers: ["ann"],
      })
      .expect(201);
    const agent = await h.keyWith(["events:write"], "batchbot");
    for (const [key, event, category] of [
      ["agent-ok", "agent.ping", "transactional"],
      ["agent-mkt", "agent.promo", "marketing"],
    ]) {
      await h
        .as()
        .post("/v1/rules")
        .send({ key, event, template: "tpl", category, channels: ["email"], importance: "high" })
        .expect(201);
    }
    const res = await batch(agent, [
      { name: "agent.ping", recipient: "ann", data: { n: 1 } },
      { name: "agent.ping", recipient: { external_id: "ann" } },
      { name: "agent.ping", recipient: "ann", data: { n: 2 } },
      { name: "svc.approval_requested", recipient: "ann" },
      { name: "agent.promo", recipient: "ann" },
      { name: "agent.ping", recipient: "ann", data: { n: 3 } },
    ]).expect(207);
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([202, 403, 202, 403, 202, 202]);
    expect(res.body.results[1].problem.detail).toBe(
      "agent keys refer to people by external id; inline recipient profiles are refused",
    );
    const ids = res.body.results
      .filter((r: { status: number }) => r.status === 202)
      .map((r: { event: { id: string; agent: string } }) => {
        expect(r.event.agent).toBe("batchbot");
        return r.event.id;
      });
    for (const id of ids) await ingest(id);

    // Each event is the agent's: its budget (2 a day), its categories and its importance ceiling.
    const outcomes = await Promise.all(
      ids.map(async (id: string) => (await h.as(writer).get(`/v1/events/${id}`).expect(200)).body.outcome),
    );
    expect(outcomes.map((o) => o[0])).toEqual([
      expect.objectContaining({ rule: "agent-ok", matched: true, status: "queued" }),
      expect.objectContaining({ rule: "agent-ok", matched: true, status: "queued" }),
      { rule: "agent-mkt", matched: true, reason: "agent_not_allowed" },
      expect.objectContaining({ rule: "agent-ok", status: "suppressed", reason: "agent_budget: 2 per P1D" }),
    ]);
    const messages = await h.prisma.message.findMany({ where: { agent_key: "batchbot", status: "queued" } });
    expect(messages.map((m) => [m.importance, m.claimed_importance])).toEqual([
      ["normal", "high"],
      ["normal", "high"],
    ]);

    // At its cap of held items (1 here), every item of the agent is refused with 429.
    const asked = await h
      .as(await h.keyWith(["messages:write"], "batchbot"))
      .post("/v1/approvals")
      .send({ title: "deploy?", reviewers: ["ann"], expires_in_seconds: 3600 });
    expect(asked.body).toMatchObject({ status: "pending" });
    const capped = await batch(agent, [
      { name: "agent.ping", recipient: "ann" },
      { name: "agent.ping", recipient: { external_id: "ann" } },
      { name: "agent.ping", recipient: "ann", idempotency_key: "after-cap" },
    ]).expect(207);
    expect(capped.body.results.map((r: { status: number }) => r.status)).toEqual([429, 403, 429]);
    expect(capped.body.results[0].problem.detail).toMatch(
      /^agent 'batchbot' has 1 items waiting for approval \(approvals.max_pending_per_agent is 1\)/,
    );
    expect(Number(capped.headers["retry-after"])).toBeGreaterThan(3500);
  });

  it("refuses a change to a stored person inline without recipients:write, per item", async () => {
    const res = await batch(writer, [
      { name: "inline.same", recipient: { external_id: "ann", locale: "en" } },
      { name: "inline.change", recipient: { external_id: "ann", locale: "de" } },
      { name: "inline.new", recipient: { external_id: "newcomer", locale: "de" } },
    ]).expect(207);
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([202, 403, 202]);
    expect(res.body.results[1].problem.detail).toBe(
      "the inline profile would change the stored recipient (locale); that needs the scope 'recipients:write'",
    );
  });

  it("refuses the whole request when it is not a batch of 1 to 1,000 events, or over the body limit", async () => {
    const one = { name: "n", recipient: "r" };
    const large = { ...one, data: { text: "x".repeat(200) } };
    const tooMany = await batch(
      writer,
      Array.from({ length: 400 }, () => large),
    ).expect(413);
    expect(tooMany.body.title).toBe("Content too large");
    expect(tooMany.body.detail).toBe("Request body is larger than the limit of 65536 bytes");

    const empty = await batch(writer, []).expect(422);
    expect(empty.body.errors).toEqual([
      { loc: ["body", "events"], msg: "must NOT have fewer than 1 items", type: "min_items" },
    ]);
    const missing = await h.as(writer).post("/v1/events/batch").send({ event: [] }).expect(422);
    expect(missing.body.errors).toEqual(
      expect.arrayContaining([{ loc: ["body", "events"], msg: "is required", type: "missing" }]),
    );
    await h.as(writer).post("/v1/events/batch").send([one]).expect(422);
    await h
      .as()
      .post("/v1/events/batch")
      .set("Authorization", "")
      .send({ events: [one] })
      .expect(401);
    await h
      .as(await h.keyWith(["messages:read"]))
      .post("/v1/events/batch")
      .send({ events: [one] })
      .expect(403);
    expect(await h.prisma.event.count({ where: { name: "n" } })).toBe(0);
  });
});

describe("POST /v1/events/batch with a larger body limit", () => {
  let big: Harness;
  beforeAll(async () => {
    big = await startHarness("events_batch_big", { config: { api: { max_body_bytes: 1024 * 1024 } } });
  });
  afterAll(() => big.close());

  it("takes 1,000 events in one request and refuses 1,001 with 422", async () => {
    const key = await big.keyWith(["events:write"]);
    const items = Array.from({ length: 1000 }, (_, i) => ({ name: "bulk.one", recipient: `p-${i % 7}` }));
    const ok = await big.as(key).post("/v1/events/batch").send({ events: items }).expect(207);
    expect(ok.body).toMatchObject({ accepted: 1000, duplicates: 0, failed: 0 });
    expect(await big.prisma.event.count({ where: { name: "bulk.one" } })).toBe(1000);
    // Results follow the request's order.
    const recipients = ok.body.results.map((r: { event: { recipient: string } }) => r.event.recipient);
    expect(recipients).toEqual(items.map((i) => i.recipient));

    const over = await big
      .as(key)
      .post("/v1/events/batch")
      .send({ events: [...items, items[0]] })
      .expect(422);
    expect(over.body.errors).toEqual([
      { loc: ["body", "events"], msg: "must NOT have more than 1000 items", type: "max_items" },
    ]);
    expect(await big.prisma.event.count({ where: { name: "bulk.one" } })).toBe(1000);
  });
});
