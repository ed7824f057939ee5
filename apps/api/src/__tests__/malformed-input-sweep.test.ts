import { loadOpenApiDocument } from "../openapi/load-openapi";
import { startHarness, type Harness } from "./service-harness";

// Every documented operation, with path parameters and bodies a careless or hostile client might
// send: never a 500, always a problem+json. Text Postgres cannot hold (`\u0000`) is the usual way
// a 500 slips through (a lookup or insert refused by the database); these sweeps found resource
// ids, the dry run, API key names, template and agent updates doing so before they were fixed.

let h: Harness;

beforeAll(async () => {
  h = await startHarness("malformed_sweep", { config: { channels: { email: { provider: "console" } } } });
});
afterAll(() => h.close());

const PATH_VALUES = ["%00", "a%00b", "a%07b", "%E0%A4%A", "x".repeat(300), "..%2F..", "%F0%9F%92%A9"];
const BODIES: unknown[] = [
  {},
  [1],
  "text",
  { x: "\u0000" },
  {
    name: "a\u0000",
    key: "k\u0000",
    recipient: "u\u0000",
    channel: "email\u0000",
    value: "v\u0000",
    idempotency_key: "i\u0000",
    data: { "k\u0000": "v\u0000" },
  },
  { name: "order.created", recipient: "u\u0000", data: { note: "\u0000" }, idempotency_key: "\u0000" },
  { subject: "\u0000", body: "\u0000", title: "\u0000", locales: { "en\u0000": { title: "\u0000" } } },
];

type Method = "get" | "post" | "put" | "patch" | "delete";

/** A problem that says what was wrong: a detail, and for a 422 the issues. */
const usefulDetail = (body: { status?: number; detail?: unknown; errors?: unknown }): boolean =>
  typeof body.detail === "string" &&
  body.detail.length > 0 &&
  (body.status !== 422 || (Array.isArray(body.errors) && body.errors.length > 0));
const METHODS: Method[] = ["get", "post", "put", "patch", "delete"];

type Doc = {
  paths: Record<string, Record<string, { parameters?: Param[] } | Param[]>>;
  components: { parameters: Record<string, Param> };
};
type Param = { name?: string; in?: string; $ref?: string };

function operations(): [Method, string][] {
  const doc = loadOpenApiDocument() as unknown as Doc;
  return Object.entries(doc.paths).flatMap(([template, item]) =>
    METHODS.filter((m) => m in item).map((m): [Method, string] => [m, template]),
  );
}

it.each(operations())(
  "%s %s: malformed ids and bodies get a problem, never a 500",
  async (method, template) => {
    const hasParams = template.includes("{");
    const paths = hasParams ? PATH_VALUES.map((v) => template.replace(/\{[^}]+\}/g, v)) : [template];
    const bodies = method === "get" || method === "delete" ? [undefined] : BODIES;
    const failures: string[] = [];
    for (const path of paths) {
      for (const body of bodies) {
        const req = h.as()[method](path);
        const res = body === undefined ? await req : await req.send(body as object);
        const problem = String(res.headers["content-type"] ?? "").startsWith("application/problem+json");
        if (res.status >= 500 || (res.status >= 400 && !(problem && usefulDetail(res.body)))) {
          failures.push(`${path} ${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  },
);

// Bodies that pass the OpenAPI document, with a NUL in one field: each was a 500 from Postgres
// before the API refused U+0000 in any body (http/unstorable-text.ts).
it.each([
  ["post", "/v1/api-keys", { name: "k\u0000", scopes: ["events:write"] }, ["body", "name"]],
  [
    "patch",
    "/v1/templates/nul-tpl",
    { locales: { en: { title: "t\u0000", body: "b" } } },
    ["body", "locales", "en", "title"],
  ],
  ["patch", "/v1/agents/nul-bot", { name: "B\u0000" }, ["body", "name"]],
  ["post", "/v1/categories", { key: "nul-cat", description: "\u0000" }, ["body", "description"]],
  [
    "post",
    "/v1/events",
    { name: "order.created", recipient: "u1", data: { "k\u0000": 1 } },
    ["body", "data", "k\u0000"],
  ],
] as const)("%s %s with a NUL in one field is 422 at that field", async (method, path, body, loc) => {
  await h
    .as()
    .post("/v1/templates")
    .send({ key: "nul-tpl", locales: { en: { title: "t", body: "b" } } });
  await h.as().post("/v1/agents").send({ key: "nul-bot", name: "Bot" });
  const res = await h.as()[method](path).send(body).expect(422);
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(res.body.detail).toBe(`${loc.join(".")}: contains the character \\u0000, which cannot be stored`);
  expect(res.body.errors).toEqual([
    { loc, msg: "contains the character \\u0000, which cannot be stored", type: "value_error" },
  ]);
});

// Periods longer than the integer column of seconds that stores them: 422, not a 500.
it.each([
  ["/v1/rules", { key: "long-delay", delay: "P100000W" }, ["body", "delay"]],
  ["/v1/rules", { key: "long-expiry", expires_in: "PT99999999999S" }, ["body", "expires_in"]],
  [
    "/v1/agents",
    { key: "long-cap", frequency_caps: [{ period: "P100000W", limit: 1 }] },
    ["body", "frequency_caps", 0, "period"],
  ],
] as const)("POST %s with a period past 68 years is 422 at that field", async (path, fields, loc) => {
  await h.as().post("/v1/categories").send({ key: "long-cat" });
  await h
    .as()
    .post("/v1/templates")
    .send({ key: "long-tpl", locales: { en: { title: "t", body: "b" } } });
  const base =
    path === "/v1/rules"
      ? { event: "order.*", template: "long-tpl", category: "long-cat", channels: ["email"] }
      : { name: "Bot" };
  const res = await h
    .as()
    .post(path)
    .send({ ...base, ...fields })
    .expect(422);
  expect(res.body.detail).toContain(`${loc.join(".")}: must be at most 2147483647 seconds (about 68 years)`);
  expect(res.body.errors).toContainEqual({
    loc,
    msg: "must be at most 2147483647 seconds (about 68 years)",
    type: "value_error",
  });
});

it("a period given as more seconds than 2147483647 is refused by the document", async () => {
  const res = await h
    .as()
    .post("/v1/rules")
    .send({
      key: "long-num",
      event: "a",
      template: "long-tpl",
      category: "long-cat",
      channels: ["email"],
      delay: 2_147_483_648,
    })
    .expect(422);
  expect(res.body.errors).toEqual([
    expect.objectContaining({ loc: ["body", "delay"], msg: "must be <= 2147483647" }),
  ]);
});

/** `[path template, query parameter]` for every query parameter of every GET. */
function queryParameters(): [string, string][] {
  const doc = loadOpenApiDocument() as unknown as Doc;
  const resolve = (p: Param): Param => (p.$ref ? doc.components.parameters[p.$ref.split("/").pop()!]! : p);
  return Object.entries(doc.paths).flatMap(([template, item]) => {
    const get = item.get as { parameters?: Param[] } | undefined;
    if (!get) return [];
    const params = [...((item.parameters as Param[] | undefined) ?? []), ...(get.parameters ?? [])].map(
      resolve,
    );
    return params.filter((p) => p.in === "query").map((p): [string, string] => [template, p.name!]);
  });
}

it.each(queryParameters())("GET %s?%s= with odd values: a problem, never a 500", async (template, name) => {
  const path = template.replace(/\{[^}]+\}/g, "x");
  const failures: string[] = [];
  for (const value of ["%00", "a%00b", "x".repeat(1000), "-1", "999999999999", "%E0%A4%A", "msg_%00"]) {
    for (const query of [`${name}=${value}`, `${name}=${value}&${name}=${value}`]) {
      const res = await h.as().get(`${path}?${query}`);
      const problem = String(res.headers["content-type"] ?? "").startsWith("application/problem+json");
      if (res.status >= 500 || (res.status >= 400 && !(problem && usefulDetail(res.body))))
        failures.push(`${query} -> ${res.status}`);
    }
  }
  expect(failures).toEqual([]);
});
