import request from "supertest";
import { startHarness, type Harness } from "./service-harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness("ratelimit", {
    config: { api: { rate_limit: { enabled: true, per_second: 1, burst: 3 } } },
  });
}, 60_000);
afterAll(() => h.close());

it("limits each key through Redis and answers 429 with Retry-After", async () => {
  const key = await h.keyWith(["admin"]);
  const statuses: number[] = [];
  let limited: request.Response | undefined;
  const started = Date.now();
  for (let i = 0; i < 6; i++) {
    const res = await h.as(key).get("/v1/agents");
    statuses.push(res.status);
    if (res.status === 429) limited ??= res;
  }
  const elapsedSeconds = (Date.now() - started) / 1000;
  // A burst of 3, then 1 per second: on a slow machine a token may refill during the loop.
  expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
  expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(3 + Math.floor(elapsedSeconds));
  expect(statuses).toContain(429);
  expect(limited!.headers["retry-after"]).toBe("1");
  expect(limited!.body).toMatchObject({ status: 429, title: "Too many requests" });
  expect(limited!.body.detail).toMatch(/rate limit of 1 requests per second/);
  // Another key has its own bucket.
  await h
    .as(await h.keyWith(["admin"]))
    .get("/v1/agents")
    .expect(200);
  // The bucket is shared state in Redis, not in this process.
  const keys = await h.redisKeys(`${h.config.redis.prefix}:ratelimit:*`);
  expect(keys.length).toBeGreaterThanOrEqual(2);
});

describe("queue dashboard", () => {
  const basic = (password: string) => `Basic ${Buffer.from(`ops:${password}`).toString("base64")}`;

  it("asks browsers for HTTP Basic", async () => {
    const res = await request(h.app).get("/admin/queues").expect(401);
    expect(res.headers["www-authenticate"]).toMatch(/^Basic realm="svc queues"/);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  });

  it("opens with an admin key as the password and refuses other keys", async () => {
    const page = await request(h.app)
      .get("/admin/queues")
      .set("Authorization", basic(h.adminKey))
      .expect(200);
    expect(page.text).toContain("<html");
    const api = await request(h.app)
      .get("/admin/queues/api/queues")
      .set("Authorization", basic(h.adminKey))
      .expect(200);
    expect(api.body.queues.map((q: { name: string }) => q.name)).toEqual(
      expect.arrayContaining(["ingest", "delivery", "scheduler"]),
    );
    const reader = await h.keyWith(["messages:read"]);
    await request(h.app).get("/admin/queues").set("Authorization", basic(reader)).expect(403);
    const wrong = await request(h.app)
      .get("/admin/queues")
      .set("Authorization", basic(`svc_${"B".repeat(43)}`))
      .expect(401);
    expect(wrong.headers["www-authenticate"]).toMatch(/^Basic/);
  });
});
