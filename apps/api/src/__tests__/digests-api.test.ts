import { closeDigest, ingestEvent } from "@svc/engine";
import { Prisma } from "@svc/store";
import { startHarness, type Harness } from "./service-harness";

// GET /v1/digests, GET /v1/digests/{id} and POST /v1/digests/{id}/send through the whole API
// (real Postgres and Redis); the worker's close is run directly.

let h: Harness;
let reader: string;
let writer: string;
let clock = new Date("2024-01-15T12:00:00.000Z");
const now = () => clock;

beforeAll(async () => {
  h = await startHarness("digests_api", { config: { channels: { email: { provider: "console" } } }, now });
  reader = await h.keyWith(["messages:read"]);
  writer = await h.keyWith(["events:write", "messages:read", "messages:write"]);
  await h.prisma.template.create({
    data: {
      key: "tpl",
      locales: { en: { title: "{{ data.count }} updates", body: "b" } } as Prisma.InputJsonValue,
    },
  });
  for (const id of ["ann", "bob"]) {
    await h.prisma.recipient.create({
      data: {
        id: `rcp_${id}`,
        external_id: id,
        addresses: { create: [{ channel: "email", value: `${id}@example.com` }] },
      },
    });
  }
  await h.prisma.rule.create({
    data: {
      key: "comments",
      event: "comment.added",
      template: "tpl",
      category: "transactional",
      channels: ["email"],
      digest: {
        window: 3600,
        deliver_at: null,
        days: null,
        key: "{{ data.thread }}",
        send_after: null,
        max_items: 2,
        summarize: false,
        summary_fields: [],
      },
    },
  });
});
afterAll(() => h.close());

async function event(recipient: string, data: Record<string, unknown>): Promise<string> {
  const res = await h
    .as(writer)
    .post("/v1/events")
    .send({ name: "comment.added", recipient, data })
    .expect(202);
  await ingestEvent({ prisma: h.prisma, config: h.config, now }, res.body.id as string);
  return res.body.id as string;
}

const tick = (ms: number) => (clock = new Date(clock.getTime() + ms));

describe("reading digests", () => {
  let annT1: string;
  let events: string[];

  beforeAll(async () => {
    events = [];
    for (const n of [1, 2, 3]) {
      events.push(await event("ann", { thread: "t1", n }));
      tick(1000);
    }
    await event("ann", { thread: "t2", n: 4 });
    tick(1000);
    await event("bob", { thread: "t1", n: 5 });
    annT1 = (await h.prisma.digest.findFirstOrThrow({ where: { recipient_external_id: "ann", key: "t1" } }))
      .id;
  });

  it("GET /v1/digests/{id}: the record with the kept events oldest first", async () => {
    const res = await h.as(reader).get(`/v1/digests/${annT1}`).expect(200);
    expect(res.body).toEqual({
      id: annT1,
      rule: "comments",
      recipient: "ann",
      key: "t1",
      status: "open",
      status_reason: null,
      created_at: "2024-01-15T12:00:00.000Z",
      closes_at: "2024-01-15T13:00:00.000Z",
      count: 3,
      items: [
        { event_id: events[1], data: { thread: "t1", n: 2 } },
        { event_id: events[2], data: { thread: "t1", n: 3 } },
      ],
      sent_at: null,
      message_id: null,
    });
  });

  it("GET /v1/digests: newest first, filtered by recipient and status, with cursor pages", async () => {
    const all = await h.as(reader).get("/v1/digests").expect(200);
    expect(all.body.items.map((d: { recipient: string; key: string }) => `${d.recipient}/${d.key}`)).toEqual([
      "bob/t1",
      "ann/t2",
      "ann/t1",
    ]);

    const first = await h.as(reader).get("/v1/digests?recipient=ann&limit=1").expect(200);
    expect(first.body.items.map((d: { key: string }) => d.key)).toEqual(["t2"]);
    const second = await h
      .as(reader)
      .get(`/v1/digests?recipient=ann&limit=1&cursor=${first.body.next_cursor}`)
      .expect(200);
    expect([second.body.items.map((d: { key: string }) => d.key), second.body.next_cursor]).toEqual([
      ["t1"],
      null,
    ]);

    expect((await h.as(reader).get("/v1/digests?status=sent&recipient=bob").expect(200)).body).toEqual({
      items: [],
      next_cursor: null,
    });
    expect((await h.as(reader).get("/v1/digests?recipient=nobody").expect(200)).body).toEqual({
      items: [],
      next_cursor: null,
    });
    await h.as(reader).get("/v1/digests?status=closed").expect(422);
  });

  it("an unknown digest is 404", async () => {
    const res = await h.as(reader).get("/v1/digests/dig_nope").expect(404);
    expect(res.body.detail).toBe("no digest 'dig_nope'");
  });
});

describe("POST /v1/digests/{id}/send", () => {
  it("closes the window now (202, closes_at = now, close job queued); after the close a second send is 409 Invalid state", async () => {
    clock = new Date("2024-01-16T08:00:00.000Z");
    await event("bob", { thread: "early", n: 1 });
    const digest = await h.prisma.digest.findFirstOrThrow({ where: { key: "early" } });
    tick(5 * 60_000);

    const res = await h.as(writer).post(`/v1/digests/${digest.id}/send`).expect(202);
    expect(res.body).toMatchObject({
      id: digest.id,
      status: "open",
      closes_at: "2024-01-16T08:05:00.000Z",
      message_id: null,
    });
    const job = await h.queues.queue("digests").getJob(`${digest.id}-full`);
    expect(job?.data).toEqual({ digestId: digest.id });

    const closed = await closeDigest({ prisma: h.prisma, config: h.config, now }, digest.id);
    expect(closed.status).toBe("sent");
    const read = await h.as(reader).get(`/v1/digests/${digest.id}`).expect(200);
    expect(read.body).toMatchObject({
      status: "sent",
      sent_at: "2024-01-16T08:05:00.000Z",
      message_id: (closed as { messageId: string }).messageId,
    });
    const message = await h.as(reader).get(`/v1/messages/${read.body.message_id}`).expect(200);
    expect(message.body).toMatchObject({
      digest_id: digest.id,
      rule: "comments",
      status: "queued",
      content: { title: "1 updates" },
    });

    const again = await h.as(writer).post(`/v1/digests/${digest.id}/send`).expect(409);
    expect([again.body.title, again.body.detail]).toEqual([
      "Invalid state",
      "digest is sent; only open digests can be sent",
    ]);
  });

  it("needs messages:write", async () => {
    const digest = await h.prisma.digest.findFirstOrThrow({ where: { status: "open" } });
    await h.as(reader).post(`/v1/digests/${digest.id}/send`).expect(403);
  });
});

describe("agent-bound keys see no digests", () => {
  it.each([
    ["GET", "/v1/digests"],
    ["GET", "/v1/digests/:id"],
    ["POST", "/v1/digests/:id/send"],
  ])("%s %s is 403", async (method, path) => {
    const agentKey = await h.keyWith(["messages:read", "messages:write"], "bot");
    const digest = await h.prisma.digest.findFirstOrThrow({ where: { status: "open" } });
    const url = path.replace(":id", digest.id);
    const res =
      method === "GET"
        ? await h.as(agentKey).get(url).expect(403)
        : await h.as(agentKey).post(url).expect(403);
    expect(res.body.detail).toBe("agent-bound keys cannot reach digests");
    expect((await h.prisma.digest.findUniqueOrThrow({ where: { id: digest.id } })).closes_at).toEqual(
      digest.closes_at,
    );
  });
});
