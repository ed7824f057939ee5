import { mkdirSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import request from "supertest";
import { createLogCapture, createLogger } from "@svc/log";
import {
  createNoticeBus,
  createQueues,
  createRedisClient,
  redisTopologyOf,
  type Queues,
  type RedisClient,
} from "@svc/queue";
import { createPrisma, type PrismaClient } from "@svc/store";
import { MIGRATIONS_DIR } from "@svc/testkit";
import { buildApi } from "../build-api";
import { SCREENSHOTS } from "./chromium";
import { startTestRelay } from "./reviewed-api";
import { startHarness, type Harness } from "./service-harness";

// Waiting for a decision without polling storms (docs/approvals.md "Waiting for the decision"):
// GET /v1/approvals/{id}?wait= answers within a second of the decision, whichever API process
// took it (the decision's outbox entry is relayed as a notice on approvals:<id>); it answers the
// pending request when the wait ends, stops at the request's deadline, at a withdrawal, and when
// its client goes away; waiting reads are bounded per key (429). MCP's get_approval waits the same
// way. Runs on a Redis Cluster and through PgBouncer too: SVC_TEST_FLEET=1 npx jest <this file>.

let h: Harness;
let relay: { close(): Promise<void> };
let agentKey: string;
let reviewerKey: string;
/** A second API process: its own Postgres pool, Redis connections and notice bus. */
let other: { app: ReturnType<typeof buildApi>; close: () => Promise<void> };
let server: Server;
let url: string;

beforeAll(async () => {
  h = await startHarness("approvals_wait", { config: { approvals: { max_waiters_per_key: 3 } } });
  // The relay runs in the worker processes; this file runs one beside the API processes.
  relay = startTestRelay(h);
  await h
    .as()
    .put("/v1/agents/coder")
    .send({ name: "Coder", reviewers: ["ada"] })
    .expect(201);
  agentKey = await h.keyWith(["messages:write", "messages:read"], "coder");
  reviewerKey = await h.keyWith(["messages:write", "messages:read"]);
  other = await secondApi();
  server = h.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // One decision through each process first: the timings below are a running service's, not the
  // first use of each statement (Prisma compiles a query's plan when it first runs it).
  for (const app of [h.app, other.app]) {
    const id = await newRequest("Warm-up");
    const reading = waitingRead(id, 10, agentKey, app);
    await request(app).post(`/v1/approvals/${id}/approve`).set("Authorization", `Bearer ${reviewerKey}`);
    await reading;
  }
}, 90_000);

/** Decision → answer, in ms, per test; written to test-output for the record (docs/approvals.md). */
const latencies: Record<string, number> = {};

afterAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  writeFileSync(
    `${SCREENSHOTS}/approvals-wait-latency${process.env.SVC_TEST_FLEET === "1" ? "-fleet" : ""}.json`,
    `${JSON.stringify(latencies, null, 2)}\n`,
  );
  await new Promise((resolve) => server?.close(resolve));
  await other?.close();
  await relay?.close();
  await h?.close();
}, 30_000);

async function secondApi() {
  const topology = redisTopologyOf(h.config.redis);
  const prisma: PrismaClient = createPrisma({
    databaseUrl: h.config.database.url,
    poolMode: h.config.database.pool_mode,
  });
  const redis: RedisClient = createRedisClient(topology, { maxRetriesPerRequest: 2 });
  redis.on("error", () => undefined);
  const queues: Queues = createQueues({ redis: topology, prefix: h.config.redis.prefix });
  const notices = createNoticeBus({ redis: topology, prefix: h.config.redis.prefix, publisher: redis });
  const app = buildApi({
    config: h.config,
    logger: createLogger({ service: "api-two", level: "error", stream: createLogCapture().stream }),
    prisma,
    redis,
    queues,
    notices,
    migrationsDir: MIGRATIONS_DIR,
    validateResponses: true,
  });
  return {
    app,
    close: async () => {
      await notices.close();
      await queues.close();
      redis.disconnect();
      await prisma.$disconnect();
    },
  };
}

async function newRequest(title = "Deploy 1.2.3 to production?"): Promise<string> {
  const res = await h
    .as(agentKey)
    .post("/v1/approvals")
    .send({ title, reviewers: ["ada"] })
    .expect(201);
  return res.body.id as string;
}

/** A waiting read, how long it took (`at`, ms) and when it answered (`answeredAt`, epoch ms). */
function waitingRead(id: string, wait: number, key = agentKey, app = h.app) {
  const start = Date.now();
  return request(app)
    .get(`/v1/approvals/${id}?wait=${wait}`)
    .set("Authorization", `Bearer ${key}`)
    .then((res) => ({ res, at: Date.now() - start, answeredAt: Date.now() }));
}

/** Runs the decision; "within a second" counts from its answer (the decision has committed). */
async function decide(run: () => Promise<unknown>): Promise<number> {
  await run();
  return Date.now();
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("GET /v1/approvals/{id}?wait=", () => {
  it("answers within a second of a decision taken by this API process", async () => {
    const id = await newRequest();
    const reading = waitingRead(id, 20);
    await settle(1_000); // the read is waiting
    const decidedAt = await decide(() =>
      h.as(reviewerKey).post(`/v1/approvals/${id}/approve`).send({ reason: "go ahead" }).expect(200),
    );
    const { res, answeredAt } = await reading;
    const latency = (latencies.same_process = answeredAt - decidedAt);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: "approved", comment: "go ahead" });
    expect(latency).toBeLessThan(1_000);
  }, 30_000);

  it("answers within a second of a decision taken by another API process", async () => {
    const id = await newRequest();
    const reading = waitingRead(id, 20);
    await settle(1_000);
    const decidedAt = await decide(() =>
      request(other.app)
        .post(`/v1/approvals/${id}/reject`)
        .set("Authorization", `Bearer ${reviewerKey}`)
        .send({ reason: "not on a Friday" })
        .expect(200),
    );
    const { res, answeredAt } = await reading;
    const latency = (latencies.decided_in_other_process = answeredAt - decidedAt);
    expect(res.body).toMatchObject({ id, status: "rejected", comment: "not on a Friday" });
    expect(latency).toBeLessThan(1_000);
  }, 30_000);

  it("waiting in the other process, deciding in this one", async () => {
    const id = await newRequest();
    const reading = waitingRead(id, 20, agentKey, other.app);
    await settle(1_000);
    const decidedAt = await decide(() => h.as(reviewerKey).post(`/v1/approvals/${id}/approve`).expect(200));
    const { res, answeredAt } = await reading;
    expect(res.body).toMatchObject({ id, status: "approved" });
    expect((latencies.waiting_in_other_process = answeredAt - decidedAt)).toBeLessThan(1_000);
  }, 30_000);

  it("answers the pending request when the wait ends, and at once without wait or once decided", async () => {
    const id = await newRequest();
    const { res, at } = await waitingRead(id, 2);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: "pending", decided_at: null });
    expect(at).toBeGreaterThanOrEqual(1_900);
    expect(at).toBeLessThan(3_500);
    const quick = await waitingRead(id, 0);
    expect(quick.res.body.status).toBe("pending");
    expect(quick.at).toBeLessThan(1_000);
    await h.as(reviewerKey).post(`/v1/approvals/${id}/approve`).expect(200);
    const decided = await waitingRead(id, 30);
    expect(decided.res.body.status).toBe("approved");
    expect(decided.at).toBeLessThan(1_000);
  }, 30_000);

  it("ends at the request's deadline: the request reads expired", async () => {
    const id = await newRequest();
    await h.prisma.approvalRequest.update({
      where: { id },
      data: { expires_at: new Date(Date.now() + 1_500) },
    });
    const { res, at } = await waitingRead(id, 20);
    expect(res.body).toMatchObject({ id, status: "expired" });
    expect(at).toBeGreaterThanOrEqual(1_000);
    expect(at).toBeLessThan(3_000);
  }, 30_000);

  it("a withdrawal answers a waiting read at once", async () => {
    const id = await newRequest();
    const reading = waitingRead(id, 20);
    await settle(1_000);
    const cancelled = await h.as(agentKey).post(`/v1/approvals/${id}/cancel`).expect(200);
    const withdrawnAt = Date.now();
    expect(cancelled.body).toMatchObject({ id, status: "withdrawn", decided_by: null });
    const { res, answeredAt } = await reading;
    expect(res.body).toMatchObject({ id, status: "withdrawn" });
    expect((latencies.withdrawn = answeredAt - withdrawnAt)).toBeLessThan(1_000);
  }, 30_000);

  it.each([
    ["31", "must be <= 30"],
    ["-1", "must be >= 0"],
    ["soon", "must be integer"],
  ])("wait=%s is 422 problem+json", async (wait, msg) => {
    const id = await newRequest();
    const res = await h.as(agentKey).get(`/v1/approvals/${id}?wait=${wait}`).expect(422);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ["query", "wait"], msg })]);
  });

  it("bounds the waiting reads of a key (429 with Retry-After); others and later reads still wait", async () => {
    const id = await newRequest();
    const held = [0, 1, 2].map(() => waitingRead(id, 3));
    await settle(500);
    const refused = await h.as(agentKey).get(`/v1/approvals/${id}?wait=3`).expect(429);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.body.detail).toBe(
      "this API key already holds 3 waiting reads (approvals.max_waiters_per_key); retry in a second or read without wait",
    );
    // Another key still waits; a read without wait is never refused.
    const otherKey = waitingRead(id, 1, reviewerKey);
    await h.as(agentKey).get(`/v1/approvals/${id}`).expect(200);
    expect((await otherKey).res.status).toBe(200);
    for (const reading of await Promise.all(held)) expect(reading.res.status).toBe(200);
    expect((await waitingRead(id, 1)).res.status).toBe(200);
  }, 30_000);

  it("stops waiting when the client goes away (its place is free at once)", async () => {
    const id = await newRequest();
    const controllers = [0, 1, 2].map(() => new AbortController());
    const reads = controllers.map((controller) =>
      fetch(`${url}/v1/approvals/${id}?wait=30`, {
        headers: { Authorization: `Bearer ${agentKey}` },
        signal: controller.signal,
      }).catch((error: unknown) => error),
    );
    await settle(500);
    await h.as(agentKey).get(`/v1/approvals/${id}?wait=1`).expect(429);
    controllers.forEach((controller) => controller.abort());
    await Promise.all(reads);
    await settle(200);
    const { res, at } = await waitingRead(id, 1);
    expect(res.status).toBe(200);
    expect(at).toBeGreaterThanOrEqual(900);
  }, 30_000);
});

describe("MCP get_approval with wait_seconds (the SDK's client)", () => {
  it("answers within a second of the decision, structured as the REST read", async () => {
    const client = new Client({ name: "wait-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${agentKey}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((candidate) => candidate.name === "get_approval")!;
      expect(tool.inputSchema.properties?.wait_seconds).toEqual({
        type: "integer",
        minimum: 0,
        maximum: 30,
        default: 0,
        description: "Wait up to this many seconds (at most 30) for a decision before answering.",
      });
      const id = await newRequest();
      const calling = client.callTool({
        name: "get_approval",
        arguments: { approval_id: id, wait_seconds: 20 },
      });
      await settle(1_000);
      let answeredAt = 0;
      const answered = calling.then((result) => ((answeredAt = Date.now()), result as CallToolResult));
      const decidedAt = await decide(() =>
        h.as(reviewerKey).post(`/v1/approvals/${id}/approve`).send({ reason: "fine" }).expect(200),
      );
      const result = await answered;
      expect((latencies.mcp_get_approval = answeredAt - decidedAt)).toBeLessThan(1_000);
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ id, status: "approved", comment: "fine" });

      const pending = await newRequest();
      const started = Date.now();
      const waited = (await client.callTool({
        name: "get_approval",
        arguments: { approval_id: pending, wait_seconds: 1 },
      })) as CallToolResult;
      expect(waited.structuredContent).toMatchObject({ id: pending, status: "pending" });
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);

      const tooLong = (await client.callTool({
        name: "get_approval",
        arguments: { approval_id: pending, wait_seconds: 31 },
      })) as CallToolResult;
      expect(tooLong.isError).toBe(true);
      expect((tooLong.content[0] as { text: string }).text).toContain(
        "arguments.wait_seconds: must be <= 30",
      );
    } finally {
      await client.close();
    }
  }, 30_000);
});
