import request from "supertest";
import { sha256Hex } from "@svc/core";
import { revokeApiKey } from "@svc/engine";
import { createLogCapture, createLogger } from "@svc/log";
import {
  createNoticeBus,
  createRedisClient,
  redisTopologyOf,
  type NoticeBus,
  type RedisClient,
} from "@svc/queue";
import { MIGRATIONS_DIR, waitFor } from "@svc/testkit";
import { apiKeyCacheWithNotices } from "../auth/api-key-notices";
import { buildApi } from "../build-api";
import { startHarness, type Harness } from "./service-harness";

// The fast accept path keeps its guarantees: key revocation is immediate in this process and
// reaches other API processes through Redis; concurrent events share a commit but not their fate.

let h: Harness;
let redisB: RedisClient;
let noticesB: NoticeBus;
let appB: ReturnType<typeof buildApi>;

beforeAll(async () => {
  h = await startHarness("accept_path");
  // A second API instance on the same database and Redis prefix: another process, as far as the
  // key cache is concerned (its own cache, its own subscriber).
  const topology = redisTopologyOf(h.config.redis);
  redisB = createRedisClient(topology, { maxRetriesPerRequest: 2 });
  noticesB = createNoticeBus({ redis: topology, prefix: h.config.redis.prefix });
  appB = buildApi({
    config: h.config,
    logger: createLogger({ service: "api-b", stream: createLogCapture().stream }),
    prisma: h.prisma,
    redis: redisB,
    queues: h.queues,
    notices: noticesB,
    migrationsDir: MIGRATIONS_DIR,
  });
}, 60_000);

afterAll(async () => {
  redisB.disconnect();
  await noticesB.close();
  await h.close();
});

async function subscribersOf(channel: string): Promise<number> {
  const nodes = "nodes" in h.redis ? h.redis.nodes("all") : [h.redis];
  const counts = await Promise.all(
    nodes.map(async (node) => Number(((await node.pubsub("NUMSUB", channel)) as [string, number])[1])),
  );
  return counts.reduce((sum, n) => sum + n, 0);
}

const post = (app: Parameters<typeof request>[0], key: string, body: object) =>
  request(app).post("/v1/events").set("Authorization", `Bearer ${key}`).send(body);

describe("revoking a key", () => {
  it("refuses it on the very next request in the same process", async () => {
    const key = await h.keyWith(["events:write"]);
    await post(h.app, key, { name: "a.b", recipient: "ann" }).expect(202);
    await h
      .as()
      .post(`/v1/api-keys/${h.keyIdOf(key)}/revoke`)
      .expect(200);
    const refused = await post(h.app, key, { name: "a.b", recipient: "ann" }).expect(401);
    expect(refused.body.detail).toBe("API key revoked");
  });

  it("refuses it promptly in another API process sharing Redis", async () => {
    const key = await h.keyWith(["events:write"]);
    await post(appB, key, { name: "a.b", recipient: "ann" }).expect(202); // cached in B
    const revokedAt = Date.now();
    await h
      .as()
      .post(`/v1/api-keys/${h.keyIdOf(key)}/revoke`)
      .expect(200);
    await waitFor(async () => (await post(appB, key, { name: "a.b", recipient: "ann" })).status === 401, {
      timeoutMs: 2_000,
      intervalMs: 10,
    });
    // Well inside the 1 s TTL: the notice did it, not expiry of the cached row.
    expect(Date.now() - revokedAt).toBeLessThan(900);
  });

  it("a notice reaches caches that would otherwise trust the row for a minute", async () => {
    const key = await h.keyWith(["events:write"]);
    const topology = redisTopologyOf(h.config.redis);
    const noticesA = createNoticeBus({ redis: topology, prefix: h.config.redis.prefix });
    const noticesC = createNoticeBus({ redis: topology, prefix: h.config.redis.prefix });
    try {
      const cacheA = apiKeyCacheWithNotices({ prisma: h.prisma, notices: noticesA, ttlMs: 60_000 });
      const cacheC = apiKeyCacheWithNotices({ prisma: h.prisma, notices: noticesC, ttlMs: 60_000 });
      const hash = sha256Hex(key);
      // Subscriptions as PUBSUB NUMSUB counts them on every node (a cluster's are spread over its nodes).
      await waitFor(async () => (await subscribersOf(noticesC.channel("api-keys:changed"))) === 4, {
        timeoutMs: 2_000,
        what: "four subscribers",
      });
      expect((await cacheC.lookup(hash))?.revoked_at).toBeNull();
      await revokeApiKey({ prisma: h.prisma, now: () => new Date(), apiKeyCache: cacheA }, h.keyIdOf(key));
      await waitFor(async () => (await cacheC.lookup(hash))?.revoked_at instanceof Date, {
        timeoutMs: 2_000,
        intervalMs: 10,
      });
    } finally {
      await noticesA.close();
      await noticesC.close();
    }
  });
});

describe("concurrent events", () => {
  it("each gets its own answer: stored, duplicate, 409, or 422 for text Postgres cannot store", async () => {
    const key = await h.keyWith(["events:write"]);
    const bodies = [
      { name: "order.created", recipient: "p1", idempotency_key: "conc-1" },
      { name: "order.created", recipient: "p1", idempotency_key: "conc-1" },
      { name: "order.created", recipient: "p2", idempotency_key: "conc-1" },
      { name: "order.created", recipient: "p3", data: { note: "nul \u0000" } },
      { name: "order.created", recipient: "p4" },
    ];
    const responses = await Promise.all(bodies.map((body) => post(h.app, key, body)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.slice(0, 3).sort()).toEqual([200, 202, 409]);
    expect(statuses.slice(3)).toEqual([422, 202]);
    expect(responses[3]!.body).toMatchObject({
      status: 422,
      detail: "body.data.note: contains the character \\u0000, which cannot be stored",
      errors: [
        {
          loc: ["body", "data", "note"],
          msg: "contains the character \\u0000, which cannot be stored",
          type: "value_error",
        },
      ],
    });
    expect(responses[3]!.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(
      await h.prisma.event.count({ where: { recipient_external_id: { in: ["p1", "p2", "p3", "p4"] } } }),
    ).toBe(2);
  });
});
