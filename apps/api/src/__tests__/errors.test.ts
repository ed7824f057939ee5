import request from "supertest";
import { AppError } from "@svc/core";
import { testApp, waitForLog } from "./test-app";

// Errors thrown by handlers: AppError maps to its problem (with headers), anything else is a 500
// that leaks nothing and is logged with the path and stack.

function appThrowing(error: unknown) {
  return testApp({
    extraRoutes: (router) => {
      router.get("/test/fail", async () => {
        await Promise.resolve();
        throw error;
      });
    },
  });
}

describe("AppError -> problem", () => {
  it.each([
    {
      error: new AppError("not_found", "Message msg_1 not found"),
      status: 404,
      title: "Not found",
      headers: {},
    },
    {
      error: new AppError("forbidden", "Key lacks scope admin"),
      status: 403,
      title: "Forbidden",
      headers: {},
    },
    {
      error: new AppError("invalid_state", "Message is not waiting"),
      status: 409,
      title: "Invalid state",
      headers: {},
    },
    { error: new AppError("conflict", "Agent key exists"), status: 409, title: "Conflict", headers: {} },
    { error: new AppError("gone", "Link already used"), status: 410, title: "Gone", headers: {} },
    {
      error: new AppError("rate_limited", "Slow down", { headers: { "Retry-After": "7" } }),
      status: 429,
      title: "Too many requests",
      headers: { "retry-after": "7" },
    },
    {
      error: new AppError("unauthorized", "Missing API key"),
      status: 401,
      title: "Unauthorized",
      headers: { "www-authenticate": "Bearer" },
    },
    {
      error: new AppError("unauthorized", "Expired key", {
        headers: { "WWW-Authenticate": 'Bearer error="invalid_token"' },
      }),
      status: 401,
      title: "Unauthorized",
      headers: { "www-authenticate": 'Bearer error="invalid_token"' },
    },
  ])("$error.code: $error.detail", async ({ error, status, title, headers }) => {
    const { app } = appThrowing(error);
    const res = await request(app).get("/test/fail");
    expect(res.status).toBe(status);
    expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(res.headers).toMatchObject(headers);
    expect(res.body).toEqual({
      type: "about:blank",
      title,
      status,
      detail: error.detail,
      instance: "/test/fail",
    });
  });

  it("carries validation errors and extension members", async () => {
    const errors = [
      { loc: ["body", "scopes", 0], msg: "agent-bound keys may not hold admin", type: "forbidden_scope" },
    ];
    const { app } = appThrowing(
      new AppError("unprocessable", "Invalid scopes", { errors, extra: { agent: "helper" } }),
    );
    const res = await request(app).get("/test/fail");
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      type: "about:blank",
      title: "Unprocessable content",
      status: 422,
      detail: "Invalid scopes",
      instance: "/test/fail",
      errors,
      agent: "helper",
    });
  });
});

describe("unexpected errors -> 500", () => {
  it("answers without internals and logs path and stack", async () => {
    const { app, logs } = appThrowing(new Error("db password=hunter2 exploded"));
    const res = await request(app).get("/test/fail").set("X-Request-Id", "req-500");
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      type: "about:blank",
      title: "Internal server error",
      status: 500,
      detail: "An internal error occurred; request id req-500",
      instance: "/test/fail",
    });
    expect(res.text).not.toContain("hunter2");
    const entry = await waitForLog(logs, (e) => e.message === "request failed");
    expect(entry).toMatchObject({
      level: "error",
      method: "GET",
      path: "/test/fail",
      status: 500,
      request_id: "req-500",
    });
    const error = entry.error as { message: string; stack: string };
    expect(error.message).toBe("db password=hunter2 exploded");
    expect(error.stack).toContain("errors.test.ts");
  });

  it("a non-Error throw is still a 500", async () => {
    const { app } = appThrowing("just a string");
    const res = await request(app).get("/test/fail");
    expect(res.status).toBe(500);
    expect(res.body.title).toBe("Internal server error");
  });

  it("an AppError internal keeps its detail out of the response", async () => {
    const { app } = appThrowing(new AppError("internal", "invariant broken: row 7"));
    const res = await request(app).get("/test/fail").set("X-Request-Id", "r7");
    expect(res.status).toBe(500);
    expect(res.body.detail).toBe("An internal error occurred; request id r7");
  });
});

describe("response validation (deps.validateResponses)", () => {
  it("a response that breaks its schema becomes a logged 500", async () => {
    const { app, logs } = testApp();
    const res = await request(app)
      .post("/test/echo/1")
      .set("Authorization", "Bearer k")
      .send({ name: "bad-out" });
    expect(res.status).toBe(500);
    const entry = await waitForLog(logs, (e) => e.message === "request failed");
    expect(entry.validator_errors).toEqual([
      { path: "/response/name", message: "must be string", errorCode: "type.openapi.validation" },
    ]);
  });

  it("is off unless asked for", async () => {
    const { app } = testApp({ validateResponses: false });
    const res = await request(app)
      .post("/test/echo/1")
      .set("Authorization", "Bearer k")
      .send({ name: "bad-out" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 5 });
  });
});
