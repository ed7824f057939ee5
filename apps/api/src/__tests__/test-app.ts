import type { Express, RequestHandler, Router } from "express";
import { createLogCapture, createLogger, type LogCapture } from "@svc/log";
import { createApp, type AppDeps } from "../app";
import { loadOpenApiDocument, type OpenApiDocument } from "../openapi/load-openapi";

// A test-only document: the real one plus an echo operation, so validation is exercised without
// shipping a fake endpoint in the real document.

const echoBody = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: { type: "string", maxLength: 10 },
    kind: { enum: ["a", "b"] },
    emails: { type: "array", items: { type: "string", format: "email" } },
  },
};

export function testDocument(): OpenApiDocument {
  const doc = loadOpenApiDocument();
  doc.paths["/test/echo/{id}"] = {
    post: {
      operationId: "testEcho",
      security: [{ bearerAuth: ["events:write"] }],
      parameters: [
        { name: "id", in: "path", required: true, schema: { type: "integer", maximum: 10 } },
        { $ref: "#/components/parameters/Limit" },
      ],
      requestBody: { required: true, content: { "application/json": { schema: echoBody } } },
      responses: {
        "200": {
          description: "echo",
          content: {
            "application/json": {
              schema: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
            },
          },
        },
        "422": { $ref: "#/components/responses/UnprocessableContent" },
      },
    },
  };
  doc.paths["/test/fail"] = {
    get: {
      security: [],
      responses: {
        "200": { description: "never", content: { "application/json": { schema: { type: "object" } } } },
      },
    },
  };
  doc.paths["/test/unimplemented"] = {
    get: { security: [], responses: { "204": { description: "nothing" } } },
  };
  doc.paths["/v1/broadcasts"] = {
    post: {
      security: [],
      requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
      responses: {
        "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } },
      },
    },
  };
  return doc;
}

export interface TestApp {
  app: Express;
  logs: LogCapture;
}

export function testApp(
  overrides: Partial<AppDeps> & { extraRoutes?: (router: Router) => void } = {},
): TestApp {
  const logs = createLogCapture();
  const logger = createLogger({ service: "api-test", level: "debug", stream: logs.stream });
  const echo: RequestHandler = (req, res) => {
    logger.info("echo handled");
    const body = req.body as { name?: string };
    if (body.name === "bad-out") return void res.json({ name: 5 }); // breaks the response schema
    res.json({ ...(req.body as object), limit: req.query.limit ?? null });
  };
  const app = createApp({
    logger,
    config: { api: { max_body_bytes: 100, max_broadcast_body_bytes: 1000 } },
    validateResponses: true,
    apiDocument: testDocument(),
    routes: (router) => {
      router.post("/test/echo/:id", echo);
      router.post("/v1/broadcasts", (req, res) => {
        res.json({ size: JSON.stringify(req.body).length });
      });
      overrides.extraRoutes?.(router);
    },
    ...overrides,
  });
  return { app, logs };
}

/** Access-log lines are written when the response closes, which may trail the client by a tick. */
export async function waitForLog(logs: LogCapture, match: (entry: Record<string, unknown>) => boolean) {
  for (let i = 0; i < 50; i++) {
    const found = logs.entries().find(match);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no matching log entry in ${JSON.stringify(logs.entries())}`);
}
