import { BROADCAST_STATUSES, type BroadcastAction, type BroadcastStatus } from "@svc/core";
import { startHarness, type Harness } from "./service-harness";

// The broadcast resource over HTTP (docs/broadcasts.md): drafts, edits only while draft, every
// allowed and every refused transition with its exact answer, lists, body limits. No worker
// runs here; states a worker reaches (completed, failed) are set on the row.

let h: Harness;

beforeAll(async () => {
  h = await startHarness("broadcasts_api", { config: { channels: { email: { provider: "console" } } } });
  await h.prisma.template.create({
    data: { key: "promo", locales: { en: { title: "Hi", body: "{{ data.offer }}" } } },
  });
}, 60_000);
afterAll(() => h.close());

const body = (extra: Record<string, unknown> = {}) => ({
  name: "Winter sale",
  template: "promo",
  category: "marketing",
  channels: ["email"],
  data: { offer: "20%" },
  audience: { recipients: ["ann", "bob", "ann"] },
  ...extra,
});

async function draft(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await h.as().post("/v1/broadcasts").send(body(extra)).expect(201);
  return res.body.id as string;
}

async function inState(status: BroadcastStatus, extra: Record<string, unknown> = {}): Promise<string> {
  const id = await draft(extra);
  if (status !== "draft") await h.prisma.broadcast.update({ where: { id }, data: { status } });
  return id;
}

describe("create, read, list", () => {
  it("creates a draft with the defaults filled in, repeated ids counted once", async () => {
    const res = await h.as().post("/v1/broadcasts").send(body()).expect(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^brd_/),
      name: "Winter sale",
      template: "promo",
      category: "marketing",
      channels: ["email"],
      importance: "normal",
      data: { offer: "20%" },
      audience: { recipient_count: 2 },
      send_at: null,
      rate_per_second: null,
      status: "draft",
      status_reason: null,
      total: 2,
      processed: 0,
      skipped: 0,
      counts: {
        queued: 0,
        sending: 0,
        pending_approval: 0,
        sent: 0,
        delivered: 0,
        failed: 0,
        suppressed: 0,
        cancelled: 0,
      },
      started_at: null,
      completed_at: null,
    });
    await h.as().get(`/v1/broadcasts/${res.body.id}`).expect(200, res.body);
  });

  it("a filter audience has no total until it runs", async () => {
    const filter = { "==": [{ var: "recipient.attributes.plan" }, "pro"] };
    const res = await h
      .as()
      .post("/v1/broadcasts")
      .send(body({ audience: { filter } }))
      .expect(201);
    expect(res.body).toMatchObject({ audience: { filter }, total: null });
  });

  it("refuses a missing template or category, a bad filter, and both audience kinds at once", async () => {
    const missing = await h
      .as()
      .post("/v1/broadcasts")
      .send(body({ template: "nope", category: "nada" }))
      .expect(422);
    expect(missing.body.errors).toEqual([
      { loc: ["body", "template"], msg: "no template 'nope'", type: "not_found" },
      { loc: ["body", "category"], msg: "no category 'nada'", type: "not_found" },
    ]);
    const badFilter = await h
      .as()
      .post("/v1/broadcasts")
      .send(body({ audience: { filter: { frobnicate: [1] } } }))
      .expect(422);
    expect(badFilter.body.errors).toEqual([
      {
        loc: ["body", "audience", "filter", "frobnicate"],
        msg: "unknown operator: frobnicate",
        type: "value_error",
      },
    ]);
    await h
      .as()
      .post("/v1/broadcasts")
      .send(body({ audience: { recipients: ["a"], filter: true } }))
      .expect(422);
  });

  it("takes 100,000 external ids; a body over api.max_broadcast_body_bytes is 413", async () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => `customer-${String(i).padStart(8, "0")}`);
    const res = await h
      .as()
      .post("/v1/broadcasts")
      .send(body({ audience: { recipients: ids } }))
      .expect(201);
    expect(res.body.total).toBe(100_000);
    expect(await h.prisma.broadcastMember.count({ where: { broadcast_id: res.body.id } })).toBe(100_000);
    const tooMany = Array.from({ length: 300_000 }, (_, i) => `customer-${String(i).padStart(20, "0")}`);
    const refused = await h
      .as()
      .post("/v1/broadcasts")
      .send(body({ audience: { recipients: tooMany } }))
      .expect(413);
    expect(refused.body).toMatchObject({ status: 413, title: "Content too large" });
  }, 30_000);

  it("lists newest first in cursor pages, filtered by status", async () => {
    const a = await inState("paused");
    const b = await inState("paused");
    const c = await inState("paused");
    const first = await h.as().get("/v1/broadcasts?status=paused&limit=2").expect(200);
    expect(first.body.items.map((x: { id: string }) => x.id)).toEqual([c, b]);
    const second = await h
      .as()
      .get(`/v1/broadcasts?status=paused&limit=2&cursor=${first.body.next_cursor}`)
      .expect(200);
    expect(second.body).toMatchObject({ next_cursor: null });
    expect(second.body.items.map((x: { id: string }) => x.id)).toEqual([a]);
  });

  it("needs admin; an unknown id is 404", async () => {
    const reader = await h.keyWith(["messages:read", "messages:write"]);
    await h.as(reader).get("/v1/broadcasts").expect(403);
    await h.as().get("/v1/broadcasts/brd_nothing").expect(404);
  });
});

describe("editing", () => {
  it("PATCH changes the given fields of a draft; PUT replaces it, audience included", async () => {
    const id = await draft({ rate_per_second: 10 });
    const patched = await h.as().patch(`/v1/broadcasts/${id}`).send({ name: "Renamed" }).expect(200);
    expect(patched.body).toMatchObject({ name: "Renamed", rate_per_second: 10, total: 2 });
    const replaced = await h
      .as()
      .put(`/v1/broadcasts/${id}`)
      .send(body({ audience: { recipients: ["x", "y", "z"] } }))
      .expect(200);
    expect(replaced.body).toMatchObject({ name: "Winter sale", rate_per_second: null, total: 3 });
    const members = await h.prisma.broadcastMember.findMany({
      where: { broadcast_id: id },
      orderBy: { seq: "asc" },
    });
    expect(members.map((m) => m.external_id)).toEqual(["x", "y", "z"]);
  });

  it.each(BROADCAST_STATUSES.filter((s) => s !== "draft"))(
    "a %s broadcast cannot be edited (409)",
    async (status) => {
      const id = await inState(status);
      for (const method of ["put", "patch"] as const) {
        const res = await h.as()[method](`/v1/broadcasts/${id}`).send(body()).expect(409);
        expect(res.body).toEqual({
          type: "about:blank",
          title: "Invalid state",
          status: 409,
          detail: `only a draft can be changed; this broadcast is ${status}`,
          instance: `/v1/broadcasts/${id}`,
        });
      }
    },
  );
});

const AHEAD = () => new Date(Date.now() + 3_600_000).toISOString();

// [from, action, send_at ahead?, to]; every other pair is refused.
const ALLOWED: [BroadcastStatus, BroadcastAction, boolean, BroadcastStatus][] = [
  ["draft", "start", false, "running"],
  ["draft", "start", true, "scheduled"],
  ["scheduled", "pause", true, "paused"],
  ["running", "pause", false, "paused"],
  ["paused", "resume", false, "running"],
  ["paused", "resume", true, "scheduled"],
  ["draft", "cancel", false, "cancelled"],
  ["scheduled", "cancel", true, "cancelled"],
  ["running", "cancel", false, "cancelled"],
  ["paused", "cancel", false, "cancelled"],
];
const ACTIONS: BroadcastAction[] = ["start", "pause", "resume", "cancel"];
const allowed = new Set(ALLOWED.map(([from, action]) => `${from}:${action}`));
const REFUSED = BROADCAST_STATUSES.flatMap((from) =>
  ACTIONS.filter((action) => !allowed.has(`${from}:${action}`)).map((action) => [from, action] as const),
);

describe("transitions", () => {
  it.each(ALLOWED)("%s --%s (send_at ahead: %s)--> %s", async (from, action, ahead, to) => {
    const id = await inState(from, ahead ? { send_at: AHEAD() } : {});
    const res = await h.as().post(`/v1/broadcasts/${id}/${action}`).expect(200);
    expect(res.body).toMatchObject({ id, status: to });
    expect((await h.prisma.broadcast.findUniqueOrThrow({ where: { id } })).status).toBe(to);
  });

  it.each(REFUSED)("%s refuses %s with 409 Invalid state", async (from, action) => {
    const id = await inState(from);
    const res = await h.as().post(`/v1/broadcasts/${id}/${action}`).expect(409);
    expect(res.body).toEqual({
      type: "about:blank",
      title: "Invalid state",
      status: 409,
      detail: `cannot ${action} a broadcast that is ${from}`,
      instance: `/v1/broadcasts/${id}/${action}`,
    });
    expect((await h.prisma.broadcast.findUniqueOrThrow({ where: { id } })).status).toBe(from);
  });

  it("start and resume enqueue the run's plan job (a scheduled one delayed until send_at)", async () => {
    const id = await draft({ send_at: AHEAD() });
    await h.as().post(`/v1/broadcasts/${id}/start`).expect(200);
    const job = await h.queues.queue("broadcasts").getJob(`${id}-1-plan`);
    expect(job?.name).toBe("plan-broadcast");
    expect(await job?.isDelayed()).toBe(true);
    await h.as().post(`/v1/broadcasts/${id}/pause`).expect(200);
    await h.as().post(`/v1/broadcasts/${id}/resume`).expect(200);
    expect(await h.queues.queue("broadcasts").getJob(`${id}-2-plan`)).toBeDefined();
  });

  it("two operators at once: one cancel wins, the other is refused", async () => {
    const id = await inState("running");
    const results = await Promise.all([
      h.as().post(`/v1/broadcasts/${id}/cancel`),
      h.as().post(`/v1/broadcasts/${id}/cancel`),
    ]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
  });
});
