import { loadOpenApiDocument } from "../openapi/load-openapi";
import { startHarness, type Harness } from "./service-harness";

// Every documented operation, with path parameters and bodies a careless or hostile client might
// send: never a 500, always a problem+json. Text Postgres cannot hold (`\u0000`) is the usual way
// a 500 slips through (a lookup or insert refused by the database); this sweep found three such
// paths (resource ids, and the dry run's recipient and idempotency key) before they were fixed.

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
