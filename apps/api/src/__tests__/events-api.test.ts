import { ingestEvent } from "@svc/engine";
import { Prisma } from "@svc/store";
import { startHarness, type Harness } from "./service-harness";

// POST/GET /v1/events and POST /v1/rules/evaluate through the whole API (real Postgres and Redis).

let h: Harness;
let writer: string;

beforeAll(async () => {
  h = await startHarness("events_api", { config: { channels: { email: { provider: "console" } } } });
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

const ingest = (id: string) => ingestEvent({ prisma: h.prisma, config: h.config, now: () => new Date() }, id);

describe("POST /v1/events", () => {
  it("202 with the pending event, then 200 with the original and duplicate: true; another body is 409", async () => {
    const body = {
      name: "order.paid",
      recipient: "ann",
      data: { total: 5, items: [1, 2] },
      idempotency_key: "k-1",
    };
    const first = await h.as(writer).post("/v1/events").send(body).expect(202);
    expect(first.body).toMatchObject({
      name: "order.paid",
      status: "pending",
      recipient: "ann",
      agent: null,
      source: "api",
      outcome: [],
      duplicate: false,
      error: null,
    });
    expect(first.body.id).toMatch(/^evt_/);

    const reordered = {
      idempotency_key: "k-1",
      data: { items: [1, 2], total: 5 },
      recipient: "ann",
      name: "order.paid",
    };
    const again = await h.as(writer).post("/v1/events").send(reordered).expect(200);
    expect(again.body).toEqual({ ...first.body, duplicate: true });

    const other = await h
      .as(writer)
      .post("/v1/events")
      .send({ ...body, data: { total: 6 } })
      .expect(409);
    expect(other.body.detail).toBe("idempotency_key 'k-1' was already used with a different request body");
    expect(await h.prisma.event.count({ where: { idempotency_key: "k-1" } })).toBe(1);
  });

  it("keys are per sender: an agent may reuse the backend's key", async () => {
    const agentKey = await h.keyWith(["events:write"], "bot");
    const body = { name: "agent.stop", recipient: "ann", idempotency_key: "shared" };
    const backend = await h.as(writer).post("/v1/events").send(body).expect(202);
    const agent = await h.as(agentKey).post("/v1/events").send(body).expect(202);
    expect(agent.body.id).not.toBe(backend.body.id);
    expect(agent.body.agent).toBe("bot");
  });

  it("racing identical requests store one event", async () => {
    const body = { name: "race.event", recipient: "ann", idempotency_key: "race-1" };
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => h.as(writer).post("/v1/events").send(body)),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 202]);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect(await h.prisma.event.count({ where: { idempotency_key: "race-1" } })).toBe(1);
  });

  it.each([
    ["an admin key", () => h.adminKey],
    ["an agent key", () => h.keyWith(["events:write"], "bot")],
  ])("svc.* names are reserved: %s gets 403", async (_name, key) => {
    const res = await h
      .as(await key())
      .post("/v1/events")
      .send({ name: "svc.approval_requested", recipient: "ann" })
      .expect(403);
    expect(res.body.detail).toBe("event names starting 'svc.' are reserved for the service");
  });

  it.each([
    [{ name: "has space", recipient: "ann" }, ["body", "name"]],
    [{ name: "wild.*", recipient: "ann" }, ["body", "name"]],
    [
      { name: "x", recipient: { external_id: "z", timezone: "Mars/Olympus" } },
      ["body", "recipient", "timezone"],
    ],
  ])("422 for %j", async (body, loc) => {
    const res = await h.as(writer).post("/v1/events").send(body).expect(422);
    expect(res.body.errors.map((e: { loc: unknown }) => e.loc)).toContainEqual(loc);
  });

  describe("inline profiles", () => {
    const profile = {
      external_id: "dan",
      locale: "en",
      addresses: [{ channel: "email", value: "dan@example.com" }],
    };

    it("agent keys may not send them", async () => {
      const agentKey = await h.keyWith(["events:write", "recipients:write"], "bot");
      const res = await h.as(agentKey).post("/v1/events").send({ name: "x", recipient: profile }).expect(403);
      expect(res.body.detail).toBe(
        "agent keys refer to people by external id; inline recipient profiles are refused",
      );
    });

    it("creating a person inline needs only events:write; repeating the stored values too", async () => {
      const created = await h
        .as(writer)
        .post("/v1/events")
        .send({ name: "signed.up", recipient: profile })
        .expect(202);
      await ingest(created.body.id);
      expect(await h.prisma.recipient.findUnique({ where: { external_id: "dan" } })).toMatchObject({
        locale: "en",
      });
      await h.as(writer).post("/v1/events").send({ name: "signed.up", recipient: profile }).expect(202);
    });

    it("changing a stored profile inline needs recipients:write", async () => {
      const changed = { ...profile, locale: "de" };
      const res = await h
        .as(writer)
        .post("/v1/events")
        .send({ name: "signed.up", recipient: changed })
        .expect(403);
      expect(res.body.detail).toBe(
        "the inline profile would change the stored recipient (locale); that needs the scope 'recipients:write'",
      );
      const manager = await h.keyWith(["events:write", "recipients:write"]);
      const ok = await h
        .as(manager)
        .post("/v1/events")
        .send({ name: "signed.up", recipient: changed })
        .expect(202);
      await ingest(ok.body.id);
      expect(await h.prisma.recipient.findUnique({ where: { external_id: "dan" } })).toMatchObject({
        locale: "de",
      });
    });
  });
});

describe("GET /v1/events", () => {
  it("shows per-rule outcomes in evaluation order once processed", async () => {
    await h.prisma.rule.createMany({
      data: [
        {
          key: "read-a",
          event: "read.test",
          template: "tpl",
          category: "transactional",
          channels: ["email"],
          priority: 1,
        },
        {
          key: "read-b",
          event: "read.test",
          template: "tpl",
          category: "transactional",
          channels: ["email"],
          priority: 2,
          rollout_percent: 0,
        },
      ],
    });
    const posted = await h
      .as(writer)
      .post("/v1/events")
      .send({ name: "read.test", recipient: "ann" })
      .expect(202);
    await ingest(posted.body.id);
    const res = await h.as(writer).get(`/v1/events/${posted.body.id}`).expect(200);
    const message = await h.prisma.message.findFirstOrThrow({ where: { event_id: posted.body.id } });
    expect(res.body).toMatchObject({ status: "processed", error: null });
    expect(res.body.outcome).toEqual([
      { rule: "read-b", matched: false, reason: "outside_rollout" },
      { rule: "read-a", matched: true, status: "queued", message_id: message.id },
    ]);
  });

  it("agent keys see only their own events; another sender's event is 403", async () => {
    const bot = await h.keyWith(["events:write", "messages:read"], "reader-bot");
    const own = await h
      .as(bot)
      .post("/v1/events")
      .send({ name: "agent.notification", recipient: "ann" })
      .expect(202);
    const theirs = await h
      .as(writer)
      .post("/v1/events")
      .send({ name: "agent.notification", recipient: "ann" })
      .expect(202);

    const page = await h.as(bot).get("/v1/events").expect(200);
    expect(page.body.items.map((e: { id: string }) => e.id)).toEqual([own.body.id]);
    await h.as(bot).get(`/v1/events/${own.body.id}`).expect(200);
    await h.as(bot).get(`/v1/events/${theirs.body.id}`).expect(403);

    const all = await h.as(writer).get("/v1/events?limit=2").expect(200);
    expect(all.body.items.map((e: { id: string }) => e.id)).toEqual([theirs.body.id, own.body.id]);
    expect(all.body.next_cursor).toEqual(expect.any(String));
  });

  it("404 for an unknown id; 403 without messages:read", async () => {
    await h.as(writer).get("/v1/events/evt_01HZZZZZZZZZZZZZZZZZZZZZZZ").expect(404);
    const writeOnly = await h.keyWith(["events:write"]);
    await h.as(writeOnly).get("/v1/events").expect(403);
  });
});

describe("POST /v1/rules/evaluate", () => {
  beforeAll(async () => {
    await h.prisma.rule.createMany({
      data: [
        {
          key: "ev-stop",
          event: "eval.test",
          template: "tpl",
          category: "transactional",
          channels: ["email"],
          priority: 9,
          condition: { "==": [{ var: "data.stop" }, true] },
          stop_processing: true,
        },
        {
          key: "ev-digest",
          event: "eval.test",
          template: "tpl",
          category: "transactional",
          channels: ["email"],
          priority: 8,
          digest: {
            window: 60,
            deliver_at: null,
            days: null,
            key: null,
            send_after: null,
            max_items: 50,
            summarize: false,
            summary_fields: [],
          },
        },
        {
          key: "ev-send",
          event: "eval.test",
          template: "tpl",
          category: "transactional",
          channels: ["email"],
          priority: 7,
        },
        {
          key: "ev-broken",
          event: "eval.test",
          template: "missing",
          category: "transactional",
          channels: ["email"],
          priority: 6,
        },
        {
          key: "ev-sms",
          event: "eval.test",
          template: "tpl",
          category: "transactional",
          channels: ["sms"],
          priority: 5,
        },
        {
          key: "ev-error",
          event: "eval.test",
          template: "tpl",
          category: "transactional",
          channels: ["email"],
          priority: 4,
          condition: { nope: [] },
        },
      ],
    });
  });

  const counts = () =>
    Promise.all([
      h.prisma.event.count(),
      h.prisma.eventOutcome.count(),
      h.prisma.message.count(),
      h.prisma.digest.count(),
      h.prisma.digestItem.count(),
      h.prisma.recipient.count(),
      h.prisma.fatigueState.count(),
    ]);

  it("reports each rule's outcome and writes nothing", async () => {
    const before = await counts();
    const res = await h
      .as()
      .post("/v1/rules/evaluate")
      .send({ name: "eval.test", recipient: "ann", data: { stop: false } })
      .expect(200);
    expect(res.body).toEqual({
      name: "eval.test",
      recipient: "ann",
      dry_run: true,
      outcome: [
        { rule: "ev-stop", matched: false, reason: "condition_false" },
        { rule: "ev-digest", matched: true, reason: "digested" },
        { rule: "ev-send", matched: true, status: "queued" },
        { rule: "ev-broken", matched: true, reason: "misconfigured" },
        { rule: "ev-sms", matched: true, status: "suppressed", reason: "no_reachable_channel" },
        { rule: "ev-error", matched: false, reason: "condition_error: unknown operator: nope" },
      ],
    });
    expect(await counts()).toEqual(before);
  });

  it("stops below a matched stop_processing rule", async () => {
    const res = await h
      .as()
      .post("/v1/rules/evaluate")
      .send({ name: "eval.test", recipient: "ann", data: { stop: true } })
      .expect(200);
    expect(res.body.outcome).toEqual([{ rule: "ev-stop", matched: true, status: "queued" }]);
  });

  it("reports duplicate for rules an earlier event with that idempotency key already messaged", async () => {
    const posted = await h
      .as()
      .post("/v1/events")
      .send({ name: "eval.test", recipient: "ann", data: { stop: false }, idempotency_key: "eval-1" })
      .expect(202);
    await ingest(posted.body.id);
    const res = await h
      .as()
      .post("/v1/rules/evaluate")
      .send({ name: "eval.test", recipient: "ann", data: { stop: false }, idempotency_key: "eval-1" })
      .expect(200);
    expect(res.body.outcome.find((o: { rule: string }) => o.rule === "ev-send")).toEqual({
      rule: "ev-send",
      matched: true,
      status: "suppressed",
      reason: "duplicate",
    });
  });

  it("refuses what POST /v1/events would refuse: 422 for a control character in the recipient or \\u0000 anywhere", async () => {
    {
      const body = { name: "eval.test", recipient: "ann\u0007" };
      const res = await h.as().post("/v1/rules/evaluate").send(body).expect(422);
      expect(res.body).toMatchObject({
        detail: "body.recipient: external id must be 1-255 characters without control characters",
        errors: [
          {
            loc: ["body", "recipient"],
            msg: "external id must be 1-255 characters without control characters",
            type: "value_error",
          },
        ],
      });
    }
    for (const [extra, loc] of [
      [{ recipient: "ann\u0000" }, ["body", "recipient"]],
      [{ idempotency_key: "k\u0000" }, ["body", "idempotency_key"]],
      [{ data: { note: "a\u0000b" } }, ["body", "data", "note"]],
      [{ data: { list: [{ "key\u0000": 1 }] } }, ["body", "data", "list", 0, "key\u0000"]],
    ] as const) {
      const body: Record<string, unknown> = Object.assign({ name: "eval.test", recipient: "ann" }, extra);
      const res = await h.as().post("/v1/rules/evaluate").send(body).expect(422);
      expect(res.body.errors).toEqual([
        { loc, msg: "contains the character \\u0000, which cannot be stored", type: "value_error" },
      ]);
      // The same body as an event is refused the same way.
      const sent = await h.as().post("/v1/events").send(body).expect(422);
      expect(sent.body.errors).toEqual(res.body.errors);
    }
  });

  it("404 for an unknown person; admin only", async () => {
    await h.as().post("/v1/rules/evaluate").send({ name: "eval.test", recipient: "nobody" }).expect(404);
    await h.as(writer).post("/v1/rules/evaluate").send({ name: "eval.test", recipient: "ann" }).expect(403);
  });
});
