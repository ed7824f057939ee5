import request from "supertest";
import { createLogCapture, createLogger } from "@svc/log";
import { createApp } from "../app";
import { loadOpenApiDocument } from "../openapi/load-openapi";
import { testApp, waitForLog } from "./test-app";

// Documentation (served locally, no CDN) and the liveness/readiness probes.

describe("documentation", () => {
  // The shipped document, not the test one: no test-only paths leak into /openapi.json.
  const app = createApp({
    logger: createLogger({ service: "docs-test", stream: createLogCapture().stream }),
    config: { api: { max_body_bytes: 1024, max_broadcast_body_bytes: 2048 } },
  });

  it("/openapi.json is the merged OpenAPI 3.1 document", async () => {
    const res = await request(app).get("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    const doc = JSON.parse(res.text) as {
      openapi: string;
      paths: Record<string, unknown>;
      components: { responses: object };
    };
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/healthz", "/readyz"]));
    expect(Object.keys(doc.paths).filter((p) => p.startsWith("/test"))).toEqual([]);
    expect(Object.keys(doc.components.responses)).toEqual(
      expect.arrayContaining([
        "BadRequest",
        "Unauthorized",
        "UnprocessableContent",
        "TooManyRequests",
        "InternalError",
      ]),
    );
  });

  it.each([
    ["/docs", /<script src="\/docs\/swagger-ui-bundle\.js"><\/script>/],
    ["/redoc", /<redoc spec-url="\/openapi\.json"><\/redoc>/],
  ])("%s is an HTML page", async (path, marker) => {
    const res = await request(app).get(path);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.text).toMatch(marker);
    expect(res.text).not.toMatch(/https?:\/\//);
  });

  it.each([
    ["/docs", 4],
    ["/redoc", 1],
  ])("every asset %s references is served locally", async (page, count) => {
    const html = (await request(app).get(page)).text;
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1] ?? "");
    expect(assets.length).toBeGreaterThanOrEqual(count);
    for (const asset of assets) {
      const res = await request(app).get(asset);
      expect([asset, res.status]).toEqual([asset, 200]);
      expect(Number(res.headers["content-length"] ?? res.text?.length ?? 0)).toBeGreaterThan(0);
    }
  });

  it("the Swagger UI initializer loads /openapi.json, not the petstore", async () => {
    const res = await request(app).get("/docs/swagger-initializer.js");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/javascript; charset=utf-8");
    expect(res.text).toContain('url: "/openapi.json"');
    expect(res.text).not.toContain("petstore");
  });

  it("docs need no key even when beforeValidation demands one", async () => {
    const guarded = createApp({
      logger: createLogger({ service: "docs-test", stream: createLogCapture().stream }),
      config: { api: { max_body_bytes: 1024, max_broadcast_body_bytes: 2048 } },
      beforeValidation: [
        () => {
          throw new Error("must not run for docs");
        },
      ],
    });
    for (const path of ["/openapi.json", "/docs", "/redoc"])
      expect((await request(guarded).get(path)).status).toBe(200);
  });
});

describe("probes", () => {
  it("/healthz answers ok", async () => {
    const { app } = testApp();
    const res = await request(app).get("/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("/readyz is 200 when every check passes", async () => {
    const { app } = testApp({
      readinessChecks: { postgres: async () => undefined, redis: async () => true },
    });
    const res = await request(app).get("/readyz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ready", checks: { postgres: "ok", redis: "ok" } });
  });

  it("/readyz is a 503 problem naming failing, false and hanging checks", async () => {
    const { app, logs } = testApp({
      readinessTimeoutMs: 50,
      readinessChecks: {
        postgres: async () => undefined,
        redis: async () => {
          throw new Error("ECONNREFUSED 127.0.0.1:6379");
        },
        migrations: async () => false,
        slow: () => new Promise(() => undefined),
      },
    });
    const res = await request(app).get("/readyz");
    expect(res.status).toBe(503);
    expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(res.body).toEqual({
      type: "about:blank",
      title: "Service unavailable",
      status: 503,
      detail: "Not ready: redis, migrations, slow",
      instance: "/readyz",
      checks: { postgres: "ok", redis: "failed", migrations: "failed", slow: "failed" },
    });
    expect(res.text).not.toContain("ECONNREFUSED");
    const logged = await waitForLog(
      logs,
      (e) => e.message === "readiness check failed" && e.check === "redis",
    );
    expect(logged.error).toBe("ECONNREFUSED 127.0.0.1:6379");
  });
});

describe("createApp", () => {
  it("refuses an invalid document at creation", () => {
    const apiDocument = loadOpenApiDocument();
    apiDocument.paths["/broken"] = { get: { responses: { "200": { content: {} } } } };
    expect(() =>
      createApp({
        logger: createLogger({ service: "t", stream: createLogCapture().stream }),
        config: { api: { max_body_bytes: 1, max_broadcast_body_bytes: 1 } },
        apiDocument,
      }),
    ).toThrow(/^Invalid OpenAPI document/);
  });
});
