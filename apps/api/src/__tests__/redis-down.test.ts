import { startHarness, type Harness } from "./service-harness";

// docs/operations.md "While Redis is down": nothing listens at the Redis address. Events are still
// accepted (stored `pending`, the sweep enqueues them later), reads are served, /readyz names
// Redis, and the rate limiter fails open or closed as configured; never a 500.

const UNREACHABLE = "redis://127.0.0.1:1";

describe("rate limiter open (the default)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("redis_down_open", { redisUrl: UNREACHABLE });
  }, 60_000);
  afterAll(() => h.close());

  it("accepts events, serves reads, and reports Redis in /readyz", async () => {
    const key = await h.keyWith(["events:write", "admin"]);
    const accepted = await h
      .as(key)
      .post("/v1/events")
      .send({ name: "order.created", recipient: "ann", data: { n: 1 } })
      .expect(202);
    expect(accepted.body).toMatchObject({ status: "pending" });
    const read = await h.as(key).get(`/v1/events/${accepted.body.id}`).expect(200);
    expect(read.body).toMatchObject({ id: accepted.body.id, status: "pending" });
    await h.as().get("/v1/agents").expect(200);
    const ready = await h.as().get("/readyz").expect(503);
    expect(ready.body.checks).toMatchObject({ postgres: "ok", redis: "failed" });
    expect(ready.headers["retry-after"]).toBeDefined();
    expect(h.logs.entries().filter((e) => e.level === "error")).toEqual([]);
  });
});

describe("rate limiter closed", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness("redis_down_closed", {
      redisUrl: UNREACHABLE,
      config: { api: { rate_limit: { on_redis_error: "closed" } } },
    });
  }, 60_000);
  afterAll(() => h.close());

  it("answers 503 with Retry-After for keyed requests", async () => {
    const res = await h.as().get("/v1/agents").expect(503);
    expect(res.headers["retry-after"]).toBe("5");
    expect(res.body).toMatchObject({
      status: 503,
      detail: "the rate limiter cannot reach Redis; retry the request",
    });
    // Probes need no key, so no rate limit: they still answer.
    await h.as().get("/healthz").expect(200);
  });
});
