import request from "supertest";
import { startHarness, type Harness } from "./service-harness";

// /mcp keeps the REST API's request rules (docs/mcp.md "Keys and what a key sees"): the key before
// the body (a malformed body without a key is 401), the body limit, and the per-key rate limit.

let h: Harness;
beforeAll(async () => {
  h = await startHarness("mcp_limits", {
    config: { api: { max_body_bytes: 2048, rate_limit: { enabled: true, per_second: 1, burst: 2 } } },
  });
}, 60_000);
afterAll(() => h.close());

const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
const mcp = (key?: string) => {
  const r = request(h.app)
    .post("/mcp")
    .set("Accept", "application/json, text/event-stream")
    .set("Content-Type", "application/json");
  return key ? r.set("Authorization", `Bearer ${key}`) : r;
};

it("authenticates before reading the body: malformed JSON without a key is 401; with a key, 400", async () => {
  const anonymous = await mcp().send("{not json");
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers["www-authenticate"]).toMatch(/^Bearer/);
  const key = await h.keyWith(["messages:read"]);
  const malformed = await mcp(key).send("{not json");
  expect(malformed.status).toBe(400);
  expect(malformed.body).toMatchObject({ title: "Bad request", status: 400 });
  const tooLarge = await mcp(key).send(JSON.stringify({ ...list, params: { pad: "x".repeat(4096) } }));
  expect(tooLarge.status).toBe(413);
});

it("shares the per-key rate limit: past the burst, 429 with Retry-After", async () => {
  const key = await h.keyWith(["messages:read"]);
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await mcp(key).send(list)).status);
  expect(statuses.slice(0, 2)).toEqual([200, 200]);
  const limited = await mcp(key).send(list);
  expect(limited.status).toBe(429);
  expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
});
