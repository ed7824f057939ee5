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
const METHODS: Method[] = ["get", "post", "put", "patch", "delete"];

function operations(): [Method, string][] {
  const doc = loadOpenApiDocument() as { paths: Record<string, Record<string, unknown>> };
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
        if (res.status >= 500 || (res.status >= 400 && !problem)) {
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
  expect(res.body.errors).toEqual([
    { loc, msg: "contains the character \\u0000, which cannot be stored", type: "value_error" },
  ]);
});
