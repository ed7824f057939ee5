import request from "supertest";
import { loadOpenApiDocument } from "../openapi/load-openapi";
import { startHarness, type Harness } from "./service-harness";

// Every documented operation that needs a key, walked from the OpenAPI document itself, so each
// endpoint added later is covered too: no key, unknown, revoked and expired keys (401 with a Bearer
// challenge), a key lacking the scope (403), and an agent-bound key on an admin endpoint (403).

interface Operation {
  method: "get" | "post" | "put" | "patch" | "delete";
  path: string;
  scopes: string[];
  /** Authenticated by an inbox token instead of an API key (docs/inbox.md). */
  inboxToken: boolean;
}

const doc = loadOpenApiDocument();
const documented: (Operation & { requiresKey: boolean })[] = Object.entries(doc.paths).flatMap(
  ([route, item]) =>
    (["get", "post", "put", "patch", "delete"] as const)
      .filter((method) => item[method])
      .map((method) => {
        const op = item[method] as { security?: Record<string, string[]>[] };
        const security = op.security ?? (doc.security as Record<string, string[]>[]);
        return {
          method,
          // Any value fills a path parameter: authentication runs before validation and lookup.
          path: route.replace(/\{[^}]+\}/g, "x1"),
          scopes: security.length === 0 ? [] : [...new Set(security.flatMap((s) => s.bearerAuth ?? []))],
          inboxToken: security.some((s) => "inboxToken" in s),
          requiresKey: security.length > 0,
        };
      }),
);
const operations = documented.filter((op) => op.requiresKey && !op.inboxToken);
const inboxOperations = documented.filter((op) => op.inboxToken);

let h: Harness;
let revokedKey: string;
let expiredKey: string;
let eventsOnlyKey: string;
let messagesReadKey: string;
let agentKey: string;

beforeAll(async () => {
  h = await startHarness("auth_matrix");
  revokedKey = await h.keyWith(["admin"]);
  await h
    .as()
    .post(`/v1/api-keys/${h.keyIdOf(revokedKey)}/revoke`)
    .expect(200);
  expiredKey = await h.keyWith(["admin"]);
  await h.prisma.apiKey.update({
    where: { id: h.keyIdOf(expiredKey) },
    data: { expires_at: new Date(Date.now() - 1000) },
  });
  eventsOnlyKey = await h.keyWith(["events:write"]);
  messagesReadKey = await h.keyWith(["messages:read"]);
  agentKey = await h.keyWith(
    ["events:write", "messages:read", "messages:write", "recipients:read", "recipients:write"],
    "helper-bot",
  );
}, 60_000);
afterAll(() => h.close());

const send = (op: Operation, key?: string) => {
  const r = request(h.app)[op.method](op.path);
  return key ? r.set("Authorization", `Bearer ${key}`) : r;
};

const expectProblem = (res: request.Response, status: number, detail: RegExp) => {
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: "about:blank", status });
  expect(res.body.detail).toMatch(detail);
};

it("walks a non-trivial set of operations", () => {
  expect(operations.length).toBeGreaterThanOrEqual(10);
  expect(operations.map((o) => `${o.method} ${o.path}`)).toEqual(
    expect.arrayContaining([
      "post /v1/api-keys",
      "post /v1/api-keys/x1/revoke",
      "put /v1/agents/x1",
      "delete /v1/agents/x1",
    ]),
  );
});

describe.each(operations)("$method $path", (op) => {
  it("401 without a key, with a Bearer challenge", async () => {
    const res = await send(op).send({ unknown_field: 1 });
    expectProblem(res, 401, /missing API key/);
    expect(res.body.title).toBe("Unauthorized");
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
  });

  it("401 for an unknown, a revoked and an expired key", async () => {
    expectProblem(await send(op, `svc_${"A".repeat(43)}`), 401, /unknown API key/);
    expectProblem(await send(op, revokedKey), 401, /revoked/);
    expectProblem(await send(op, expiredKey), 401, /expired/);
  });

  // `bearerAuth: []` (GET /v1/whoami): any valid key, so no key lacks a scope.
  if (op.scopes.length > 0) {
    it("403 for a key lacking the scope", async () => {
      const lacking = op.scopes.includes("events:write") ? messagesReadKey : eventsOnlyKey;
      const res = await send(op, lacking);
      expectProblem(res, 403, /lacks the scope/);
      expect(res.body.title).toBe("Forbidden");
    });
  }

  if (op.scopes.includes("admin")) {
    it("403 for an agent-bound key on an admin endpoint", async () => {
      expectProblem(await send(op, agentKey), 403, /agent-bound keys cannot use admin endpoints/);
    });
  }
});

it("walks the inbox-token operations too", () => {
  expect(inboxOperations.map((o) => `${o.method} ${o.path}`)).toEqual(
    expect.arrayContaining(["get /v1/inbox/items", "get /v1/inbox/stream", "post /v1/inbox/read-all"]),
  );
});

describe.each(inboxOperations)("$method $path (inbox token)", (op) => {
  it("401 without a token, with a Bearer challenge", async () => {
    const res = await send(op).send({ unknown_field: 1 });
    expectProblem(res, 401, /missing inbox token/);
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer/);
  });

  it("401 for an API key, even an admin one, and for anything that is not an inbox token", async () => {
    expectProblem(await send(op, h.adminKey), 401, /API keys are not accepted here/);
    expectProblem(await send(op, "rcp_x.1.short"), 401, /not an inbox token/);
    expectProblem(await send(op, `rcp_x.9999999999.${"A".repeat(43)}`), 401, /invalid inbox token/);
  });
});

describe("keys bound to agents", () => {
  it("cannot be created with admin (422)", async () => {
    await h.keyWith(["events:write"], "limited-bot");
    const res = await h
      .as()
      .post("/v1/api-keys")
      .send({ name: "bad", scopes: ["admin"], agent: "limited-bot" });
    expectProblem(res, 422, /agent-bound key cannot hold the admin scope/);
    expect(res.body.errors).toEqual([
      { loc: ["body", "scopes"], msg: "admin is not allowed for agent-bound keys", type: "value_error" },
    ]);
  });

  it("are refused (403) once their agent is disabled or deleted", async () => {
    const key = await h.keyWith(["messages:read"], "pausable-bot");
    await h.as().patch("/v1/agents/pausable-bot").send({ enabled: false }).expect(200);
    expectProblem(await h.as(key).get("/v1/messages"), 403, /agent 'pausable-bot' is disabled/);
    await h.as().patch("/v1/agents/pausable-bot").send({ enabled: true }).expect(200);
    expect((await h.as(key).get("/v1/messages")).status).not.toBe(403);
    await h.as().delete("/v1/agents/pausable-bot").expect(204);
    expectProblem(await h.as(key).get("/v1/messages"), 403, /agent 'pausable-bot' was deleted/);
  });
});

describe("admin implies every scope", () => {
  it("an admin key reads messages and recipients", async () => {
    await h.as().get("/v1/messages").expect(200);
    await h.as().get("/v1/recipients").expect(200);
  });
});
