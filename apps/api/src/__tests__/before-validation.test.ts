import type { RequestHandler } from "express";
import request from "supertest";
import { AppError } from "@svc/core";
import { addLogContext } from "@svc/log";
import { getOperation, type OperationInfo } from "../http/openapi-validation";
import { testApp, waitForLog } from "./test-app";

// The hook the auth layer uses: it runs after route matching and before validation, so a bad body
// without a key is 401 (docs/api.md, "Request rules"), and it can read the operation's security
// from the document.

function appWithAuth() {
  const seen: OperationInfo[] = [];
  const auth: RequestHandler = (req, res, next) => {
    const operation = getOperation(res);
    if (operation) seen.push(operation);
    if (!operation?.requiresKey) return next();
    if (req.get("Authorization") !== "Bearer good")
      throw new AppError("unauthorized", "Missing or unknown API key");
    addLogContext({ key_id: "key_1" });
    next();
  };
  return { ...testApp({ beforeValidation: [auth] }), seen };
}

describe("beforeValidation", () => {
  it.each([
    ["invalid body", { name: 5 }, "application/json"],
    ["malformed JSON", '{"name":', "application/json"],
    ["oversized body", JSON.stringify({ name: "x".repeat(300) }), "application/json"],
    ["wrong media type", "name=a", "text/plain"],
  ])("without a key, %s is 401", async (_case, body, type) => {
    const { app } = appWithAuth();
    const res = await request(app).post("/test/echo/1").set("Content-Type", type).send(body);
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toBe("Bearer");
    expect(res.body.detail).toBe("Missing or unknown API key");
  });

  it.each([
    ["invalid body", { name: 5 }, 422],
    ["malformed JSON", '{"name":', 400],
    ["valid body", { name: "a" }, 200],
  ])("with a key, %s is validated as usual", async (_case, body, status) => {
    const { app } = appWithAuth();
    const res = await request(app)
      .post("/test/echo/1")
      .set("Authorization", "Bearer good")
      .set("Content-Type", "application/json")
      .send(body);
    expect(res.status).toBe(status);
  });

  it("sees the operation's route, id and scopes; public operations need no key", async () => {
    const { app, seen } = appWithAuth();
    await request(app).post("/test/echo/1").set("Authorization", "Bearer good").send({ name: "a" });
    await request(app).get("/healthz");
    expect(seen).toEqual([
      {
        route: "/test/echo/{id}",
        operationId: "testEcho",
        security: [{ bearerAuth: ["events:write"] }],
        requiresKey: true,
        scopes: ["events:write"],
        agentKeysRefused: null,
      },
      {
        route: "/healthz",
        operationId: "getHealth",
        security: [],
        requiresKey: false,
        scopes: [],
        agentKeysRefused: null,
      },
    ]);
  });

  it("is not reached for unknown routes (404 first)", async () => {
    const { app, seen } = appWithAuth();
    const res = await request(app).get("/v1/unknown");
    expect(res.status).toBe(404);
    expect(seen).toEqual([]);
  });

  it("fields it adds to the log context reach the access log", async () => {
    const { app, logs } = appWithAuth();
    await request(app)
      .post("/test/echo/1")
      .set("Authorization", "Bearer good")
      .set("X-Request-Id", "k-1")
      .send({ name: "a" });
    const entry = await waitForLog(logs, (e) => e.message === "request" && e.request_id === "k-1");
    expect(entry.key_id).toBe("key_1");
  });
});

describe("mountUnvalidated", () => {
  it("serves routes outside the document without validation", async () => {
    const { app } = testApp({
      mountUnvalidated: (expressApp) => {
        expressApp.get("/preferences/:token", (_req, res) => {
          res.type("html").send("<p>prefs</p>");
        });
      },
    });
    const res = await request(app).get("/preferences/abc?anything=1");
    expect(res.status).toBe(200);
    expect(res.text).toBe("<p>prefs</p>");
  });
});
