import express from "express";
import { Redis } from "ioredis";
import request from "supertest";
import { createLogCapture, createLogger } from "@svc/log";
import { errorHandler } from "../../http/error-handler";
import { rateLimit, type RateLimitOptions } from "../rate-limit";

// Redis unreachable (nothing listens on port 1): the limiter fails open or closed as configured,
// never with a 500, and says so once in the log rather than once per request.

const unreachable = new Redis("redis://127.0.0.1:1", {
  disconnectTimeout: 100,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  retryStrategy: () => 1_000,
});
unreachable.on("error", () => undefined);
afterAll(() => unreachable.disconnect());

function appWith(onRedisError: RateLimitOptions["on_redis_error"]) {
  const logs = createLogCapture();
  const logger = createLogger({ service: "api-test", level: "debug", stream: logs.stream });
  const app = express();
  app.use((_req, res, next) => {
    res.locals.principal = { keyId: "key_1" };
    next();
  });
  app.use(
    rateLimit(
      unreachable,
      "svc-test",
      { enabled: true, per_second: 10, burst: 10, on_redis_error: onRedisError },
      logger,
    ),
  );
  app.get("/thing", (_req, res) => void res.json({ ok: true }));
  app.use(errorHandler(logger));
  return { app, logs };
}

it("open: serves the request unlimited and warns once per outage", async () => {
  const { app, logs } = appWith("open");
  for (let i = 0; i < 3; i++) await request(app).get("/thing").expect(200, { ok: true });
  const warnings = logs.entries().filter((e) => e.message === "rate limiter cannot reach redis");
  expect(warnings).toHaveLength(1);
  expect(logs.entries().filter((e) => e.level === "error")).toEqual([]);
});

it("closed: answers 503 with Retry-After as a problem, not 500", async () => {
  const { app, logs } = appWith("closed");
  const res = await request(app).get("/thing").expect(503);
  expect(res.headers["retry-after"]).toBe("5");
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({
    status: 503,
    title: "Service unavailable",
    detail: "the rate limiter cannot reach Redis; retry the request",
  });
  expect(logs.entries().filter((e) => e.level === "error")).toEqual([]);
});
