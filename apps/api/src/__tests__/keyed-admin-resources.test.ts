import { startHarness, type Harness } from "./service-harness";

// The one contract of the keyed admin resources (docs/api.md, "Admin resources"), run against
// categories, templates and rules over real Postgres and Redis: POST 201/409, GET, PUT 200/201,
// PATCH, DELETE 204, 404, newest-first paging with a cursor, admin scope.

let h: Harness;
let clock = new Date(Date.now() + 3_600_000); // ahead of the migration-seeded rows, so ours list first
const tick = () => (clock = new Date(clock.getTime() + 1000));

beforeAll(async () => {
  h = await startHarness("keyed_admin", { now: () => clock });
});
afterAll(() => h?.close());

interface Case {
  noun: string;
  base: string;
  /** A valid create body with one non-default field that PUT resets. */
  body: (key: string) => Record<string, unknown>;
  /** The view of `body(key)` without timestamps. */
  view: (key: string) => Record<string, unknown>;
  /** `body` minus the non-default field, and what its view shows instead. */
  replaced: (key: string) => { body: Record<string, unknown>; view: Record<string, unknown> };
  patch: { body: Record<string, unknown>; changes: Record<string, unknown> };
}

const en = { title: "Order {{ data.order_id }} shipped", body: "On its way." };

const CASES: Case[] = [
  {
    noun: "category",
    base: "/v1/categories",
    body: (key) => ({ key, description: "Order updates", marketing: true }),
    view: (key) => ({
      key,
      description: "Order updates",
      frequency_caps: [],
      respect_quiet_hours: true,
      allow_unsubscribe: true,
      marketing: true,
      fatigue: null,
      builtin: false,
    }),
    replaced: (key) => ({
      body: { description: "Order updates" },
      view: { ...CASES[0]!.view(key), marketing: false },
    }),
    patch: { body: { respect_quiet_hours: false }, changes: { respect_quiet_hours: false } },
  },
  {
    noun: "template",
    base: "/v1/templates",
    body: (key) => ({ key, locales: { en }, ai_attributes: ["order_id"] }),
    view: (key) => ({ key, default_locale: "en", locales: { en }, ai_attributes: ["order_id"] }),
    replaced: (key) => ({
      body: { locales: { en } },
      view: { key, default_locale: "en", locales: { en }, ai_attributes: [] },
    }),
    patch: { body: { ai_attributes: ["carrier"] }, changes: { ai_attributes: ["carrier"] } },
  },
  {
    noun: "rule",
    base: "/v1/rules",
    body: (key) => ({
      key,
      event: "order.shipped",
      template: "order-shipped",
      category: "transactional",
      channels: ["email", "sms"],
      priority: 3,
    }),
    view: (key) => ({
      key,
      name: "",
      event: "order.shipped",
      template: "order-shipped",
      category: "transactional",
      channels: ["email", "sms"],
      importance: "normal",
      digest: null,
      condition: null,
      delay: null,
      cooldown_seconds: null,
      expires_in: null,
      rollout_percent: 100,
      priority: 3,
      stop_processing: false,
      enabled: true,
    }),
    replaced: (key) => {
      const { key: _key, priority: _priority, ...body } = CASES[2]!.body(key);
      return { body, view: { ...CASES[2]!.view(key), priority: 0 } };
    },
    patch: { body: { enabled: false, name: "Shipping" }, changes: { enabled: false, name: "Shipping" } },
  },
];

const timestamps = { created_at: expect.any(String), updated_at: expect.any(String) };

describe.each(CASES)("$base", ({ noun, base, body, view, replaced, patch }) => {
  it("POST creates (201), a repeat is 409, GET reads it back", async () => {
    const createdAt = tick();
    const created = await h.as().post(base).send(body("one"));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      ...view("one"),
      created_at: createdAt.toISOString(),
      updated_at: expect.any(String),
    });

    const again = await h.as().post(base).send(body("one"));
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe(`${noun} 'one' already exists`);

    const read = await h.as().get(`${base}/one`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it("PUT creates (201), then replaces (200) with left-out fields back to their defaults", async () => {
    const { key: _key, ...withoutKey } = body("two");
    const createdAt = tick();
    const created = await h.as().put(`${base}/two`).send(withoutKey);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      ...view("two"),
      created_at: createdAt.toISOString(),
      updated_at: expect.any(String),
    });

    tick();
    const again = await h
      .as()
      .put(`${base}/two`)
      .send({ key: "two", ...replaced("two").body });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({
      ...replaced("two").view,
      created_at: createdAt.toISOString(),
      updated_at: expect.any(String),
    });
  });

  it("PUT with a body key other than the path's is 422", async () => {
    const res = await h
      .as()
      .put(`${base}/three`)
      .send({ ...replaced("three").body, key: "other" });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { loc: ["body", "key"], msg: "must equal the key in the path", type: "value_error" },
    ]);
    expect((await h.as().get(`${base}/three`)).status).toBe(404);
  });

  it("PATCH changes only the given fields", async () => {
    await h.as().post(base).send(body("four")).expect(201);
    const res = await h.as().patch(`${base}/four`).send(patch.body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...view("four"), ...patch.changes, ...timestamps });
    expect((await h.as().get(`${base}/four`)).body).toEqual(res.body);
  });

  it("DELETE answers 204; the key is then 404 for every method", async () => {
    await h.as().post(base).send(body("five")).expect(201);
    expect((await h.as().delete(`${base}/five`)).status).toBe(204);
    for (const res of [
      await h.as().get(`${base}/five`),
      await h.as().patch(`${base}/five`).send(patch.body),
      await h.as().delete(`${base}/five`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ title: "Not found", detail: `no ${noun} 'five'` });
    }
  });

  it("lists newest first, one page at a time, following next_cursor", async () => {
    for (const key of ["p1", "p2", "p3"]) {
      tick();
      await h.as().post(base).send(body(key)).expect(201);
    }
    const keys: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await h
        .as()
        .get(base)
        .query({ limit: 2, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      keys.push(...res.body.items.map((item: { key: string }) => item.key));
      cursor = res.body.next_cursor;
      pages += 1;
    } while (cursor);
    const everything = await h.as().get(base).query({ limit: 500 });
    expect(everything.body.next_cursor).toBeNull();
    expect(keys).toEqual(everything.body.items.map((item: { key: string }) => item.key));
    expect(keys.slice(0, 3)).toEqual(["p3", "p2", "p1"]);
    expect(pages).toBe(Math.ceil(keys.length / 2));
  });

  it("a cursor it never issued is 422", async () => {
    const res = await h.as().get(base).query({ cursor: "not-a-cursor" });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { loc: ["query", "cursor"], msg: "not a cursor returned by this list", type: "value_error" },
    ]);
  });

  it("needs the admin scope, and agent-bound keys never reach it", async () => {
    const reader = await h.keyWith(["recipients:read", "messages:read"]);
    const agentKey = await h.keyWith(["recipients:read"], "helper");
    const cases = [
      [reader, "this API key lacks the scope 'admin'"],
      [agentKey, "agent-bound keys cannot use admin endpoints"],
    ] as const;
    for (const [key, detail] of cases) {
      const res = await h.as(key).get(base);
      expect(res.status).toBe(403);
      expect(res.body.detail).toBe(detail);
    }
    expect((await h.as("svc_unknown").post(base).send({ bogus: true })).status).toBe(401);
  });
});
