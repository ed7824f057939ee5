import request from "supertest";
import { testApp, waitForLog } from "./test-app";

// Request ids, log context and the access log (which never holds credentials or query strings).

describe("request id", () => {
  const { app } = testApp();

  it.each([
    ["abc-123", "abc-123"],
    ["trace.id:7_x", "trace.id:7_x"],
  ])("accepts a sane X-Request-Id %s", async (sent, echoed) => {
    const res = await request(app).get("/healthz").set("X-Request-Id", sent);
    expect(res.headers["x-request-id"]).toBe(echoed);
  });

  it.each([["has spaces"], ["x".repeat(129)], ["<script>"]])(
    "replaces an unusable X-Request-Id %s",
    async (sent) => {
      const res = await request(app).get("/healthz").set("X-Request-Id", sent);
      expect(res.headers["x-request-id"]).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
    },
  );

  it("generates one when absent, also on error responses", async () => {
    const res = await request(app).get("/nowhere");
    expect(res.status).toBe(404);
    expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("logging", () => {
  it("writes one access-log line with method, path, route, status, duration and request id", async () => {
    const { app, logs } = testApp();
    await request(app)
      .post("/test/echo/3?limit=2")
      .set("X-Request-Id", "acc-1")
      .set("Authorization", "Bearer secret-key")
      .send({ name: "a" });
    const entry = await waitForLog(logs, (e) => e.message === "request" && e.request_id === "acc-1");
    expect(entry).toEqual({
      level: "info",
      message: "request",
      service: "api-test",
      timestamp: expect.any(String),
      request_id: "acc-1",
      method: "POST",
      path: "/test/echo/3",
      route: "/test/echo/{id}",
      status: 200,
      duration_ms: expect.any(Number),
    });
  });

  it("never logs the Authorization header, query strings or token-like path segments", async () => {
    const { app, logs } = testApp();
    const token = "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2";
    await request(app)
      .get(`/v1/track/${token}?token=qs-secret`)
      .set("X-Request-Id", "acc-2")
      .set("Authorization", "Bearer secret-key");
    const entry = await waitForLog(logs, (e) => e.message === "request" && e.request_id === "acc-2");
    expect(entry.path).toBe("/v1/track/[REDACTED]");
    const all = JSON.stringify(logs.entries());
    for (const secret of ["secret-key", "qs-secret", token]) expect(all).not.toContain(secret);
  });

  it("handlers log with the request id after the body was parsed", async () => {
    const { app, logs } = testApp();
    await request(app)
      .post("/test/echo/3")
      .set("X-Request-Id", "ctx-1")
      .set("Authorization", "Bearer k")
      .send({ name: "a" });
    const entry = await waitForLog(logs, (e) => e.message === "echo handled");
    expect(entry.request_id).toBe("ctx-1");
  });
});
