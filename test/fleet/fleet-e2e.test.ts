import { setTimeout as sleep } from "node:timers/promises";
import { createApiKey } from "@svc/engine";
import {
  CallbackReceiver,
  createTestDatabase,
  startPgBouncer,
  startRedisCluster,
  startSentinelGroup,
  waitFor,
  type TestDatabase,
} from "@svc/testkit";
import { WebhookSink } from "../../bench/lib/faults/sink";
import { startApi, startWorker, writeConfig, type SvcProcess } from "../../bench/lib/faults/svc-processes";

// svc as a fleet runs it (docs/scaling.md), on each kind of server a fleet uses: a Redis Cluster
// (3 primaries, 3 replicas), a Redis Sentinel group (1 primary, 1 replica, 3 sentinels), and
// PgBouncer in transaction mode in front of Postgres (`database.pool_mode: transaction`,
// `database.direct_url` for migrations). On each, a split deployment (an API process and two
// worker processes) carries every path end to end: events to `sent`, direct sends, a digest, a
// held message approved with its signed callback, a broadcast.

const CALLBACK_SECRET = "fleet-callback-secret-0123456789abcdef";

interface Setup {
  redis: Record<string, unknown>;
  database: (db: TestDatabase) => Record<string, unknown>;
  stop(): Promise<void>;
}

const SETUPS: Record<string, () => Promise<Setup>> = {
  "Redis Cluster": async () => {
    const cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1 });
    return {
      redis: { cluster: { nodes: cluster.nodes } },
      database: (db) => ({ url: db.databaseUrl }),
      stop: () => cluster.stop(),
    };
  },
  "Redis Sentinel": async () => {
    const sentinel = await startSentinelGroup({ replicas: 1, sentinels: 3 });
    return {
      redis: { sentinel: { name: sentinel.name, nodes: sentinel.sentinels } },
      database: (db) => ({ url: db.databaseUrl }),
      stop: () => sentinel.stop(),
    };
  },
  "PgBouncer (transaction mode) and a Redis Cluster": async () => {
    const [cluster, pgbouncer] = await Promise.all([
      startRedisCluster({ primaries: 3, replicasPerPrimary: 1 }),
      startPgBouncer({ poolMode: "transaction" }),
    ]);
    return {
      redis: { cluster: { nodes: cluster.nodes } },
      database: (db) => ({
        url: pgbouncer.urlFor(db.databaseUrl),
        pool_mode: "transaction",
        direct_url: db.databaseUrl,
      }),
      stop: async () => {
        await pgbouncer.stop();
        await cluster.stop();
      },
    };
  },
};

/** An answer of the API, with the fields this test reads (events, messages, digests, keys). */
interface Answer {
  id: string;
  status: string;
  key: string;
  rule: string;
  count: number;
  message_id: string;
  outcome: { message_id?: string }[];
  items: Answer[];
  [field: string]: unknown;
}

describe.each(Object.keys(SETUPS))("on %s", (name) => {
  let setup: Setup;
  let db: TestDatabase;
  const sink = new WebhookSink();
  const receiver = new CallbackReceiver(CALLBACK_SECRET);
  const processes: SvcProcess[] = [];
  let api: string;
  let admin: string;

  const call = async (method: string, path: string, body?: unknown, key = admin) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Answer };
  };
  const ok = async (method: string, path: string, body?: unknown, key?: string) => {
    const res = await call(method, path, body, key);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const statusOf = async (id: string) => (await ok("GET", `/v1/messages/${id}`)).status as string;

  beforeAll(async () => {
    setup = await SETUPS[name]!();
    db = await createTestDatabase("fleet_e2e");
    await Promise.all([sink.start(), receiver.start()]);
    admin = (
      await createApiKey({ prisma: db.prisma, now: () => new Date() }, { name: "fleet", scopes: ["admin"] })
    ).key;
    await db.prisma.$disconnect();
    const configFile = writeConfig(
      {
        database: setup.database(db),
        redis: setup.redis,
        prefix: `fleet_${Date.now()}`,
        sinkUrl: sink.url,
        settings: { lease_seconds: 30, sweep_seconds: 1, lock_ms: 5_000 },
      },
      { approvals: { callback_url: receiver.url } },
    );
    const env = { SVC_CALLBACK_SECRET: CALLBACK_SECRET };
    // Migrations first, by the API (over the direct URL behind the pooler), then the workers.
    processes.push(await startApi("api", configFile, { embedded: false, env }));
    processes.push(
      ...(await Promise.all([
        startWorker(
          "worker-main",
          configFile,
          ["ingest", "policy", "digests", "callbacks", "broadcasts", "scheduler"],
          { env },
        ),
        startWorker("worker-delivery", configFile, ["delivery", "screening"], { env }),
      ])),
    );
    api = processes[0]!.url!;
    await ok("PUT", "/v1/templates/note", {
      locales: { en: { title: "Note {{ data.n }}", body: "{{ data.n }} for {{ recipient.external_id }}" } },
    });
    await ok("PUT", "/v1/rules/note", {
      event: "fleet.note",
      template: "note",
      category: "transactional",
      channels: ["hook"],
    });
    await ok("PUT", "/v1/rules/roundup", {
      event: "fleet.roundup",
      template: "note",
      category: "transactional",
      channels: ["hook"],
      digest: { window: "PT2S" },
    });
    for (let i = 0; i < 30; i++)
      await ok("PUT", `/v1/recipients/p${i}`, { addresses: [{ channel: "hook", value: `hook-p${i}` }] });
  }, 180_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await Promise.all([sink.close(), receiver.close()]);
    await db?.drop();
    await setup?.stop();
  }, 60_000);

  it("delivers events to `sent`", async () => {
    const accepted = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        ok("POST", "/v1/events", { name: "fleet.note", recipient: `p${i}`, data: { n: i } }),
      ),
    );
    expect(accepted.map((e) => e.status)).toEqual(Array(30).fill("pending"));
    await waitFor(
      async () => {
        const events = await Promise.all(accepted.map((e) => ok("GET", `/v1/events/${e.id}`)));
        const messages = events.map((e) => e.outcome[0]?.message_id as string | undefined);
        if (messages.some((m) => !m)) return false;
        return (await Promise.all(messages.map((m) => statusOf(m!)))).every((s) => s === "sent");
      },
      { timeoutMs: 60_000, intervalMs: 250, what: "every event's message sent" },
    );
  }, 90_000);

  it("sends direct messages", async () => {
    const sent = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        ok("POST", "/v1/messages", {
          recipient: `p${i}`,
          template: "note",
          category: "transactional",
          channels: ["hook"],
          data: { n: i },
        }),
      ),
    );
    expect(sent.map((m) => m.status)).toEqual(Array(10).fill("queued"));
    await waitFor(
      async () => (await Promise.all(sent.map((m) => statusOf(m.id)))).every((s) => s === "sent"),
      {
        timeoutMs: 60_000,
        intervalMs: 250,
        what: "every direct send sent",
      },
    );
    expect(sent.every((m) => sink.received.has(m.id))).toBe(true);
  }, 90_000);

  it("groups events into one digest message", async () => {
    for (let n = 0; n < 3; n++)
      await ok("POST", "/v1/events", { name: "fleet.roundup", recipient: "p1", data: { n } });
    const digest = await waitFor(
      async () => {
        const page = await ok("GET", "/v1/digests?recipient=p1");
        const found = page.items.find((d) => d.rule === "roundup" && d.status === "sent");
        return found ?? null;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: "the digest sent" },
    );
    expect(digest.count).toBe(3);
    await waitFor(async () => (await statusOf(digest.message_id)) === "sent", {
      timeoutMs: 30_000,
      what: "the digest's message sent",
    });
  }, 90_000);

  it("holds an agent's message, sends it once approved, and signs the decision callback", async () => {
    await ok("PUT", "/v1/agents/fleet-bot", {
      name: "Fleet bot",
      categories: ["transactional"],
      approval: true,
    });
    const agentKey = (
      await ok("POST", "/v1/api-keys", { name: "bot", scopes: ["messages:write"], agent: "fleet-bot" })
    ).key as string;
    const held = await ok(
      "POST",
      "/v1/messages",
      {
        recipient: "p2",
        template: "note",
        category: "transactional",
        channels: ["hook"],
        data: { n: "held" },
      },
      agentKey,
    );
    expect(held.status).toBe("pending_approval");
    await sleep(500);
    expect(sink.received.has(held.id)).toBe(false);
    const approved = await ok("POST", `/v1/messages/${held.id}/approve`, {});
    // Queued by the decision; a fast worker may already have taken it when the answer is read.
    expect(["queued", "sending", "sent"]).toContain(approved.status);
    await waitFor(async () => (await statusOf(held.id)) === "sent", {
      timeoutMs: 30_000,
      what: "the held message sent",
    });
    const post = await waitFor(
      () => receiver.posts.find((p) => JSON.parse(p.raw.toString()).id === held.id) ?? null,
      { timeoutMs: 30_000, what: "the decision callback" },
    );
    expect(post.verified).toBe(true);
    expect(JSON.parse(post.raw.toString())).toMatchObject({ type: "approval.decided", status: "approved" });
  }, 90_000);

  it("runs a broadcast to completion", async () => {
    const created = await ok("POST", "/v1/broadcasts", {
      name: "fleet",
      template: "note",
      category: "transactional",
      channels: ["hook"],
      data: { n: "all" },
      audience: { recipients: Array.from({ length: 30 }, (_, i) => `p${i}`) },
    });
    await ok("POST", `/v1/broadcasts/${created.id}/start`);
    const done = await waitFor(
      async () => {
        const broadcast = await ok("GET", `/v1/broadcasts/${created.id}`);
        return broadcast.status === "completed" ? broadcast : null;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: "the broadcast completed" },
    );
    expect(done).toMatchObject({ total: 30, processed: 30 });
    const page = await ok("GET", `/v1/messages?broadcast_id=${created.id}&limit=100`);
    await waitFor(
      async () =>
        (await Promise.all((page.items as { id: string }[]).map((m) => statusOf(m.id)))).every(
          (s) => s === "sent",
        ),
      { timeoutMs: 60_000, intervalMs: 250, what: "every broadcast message sent" },
    );
    expect(page.items).toHaveLength(30);
  }, 120_000);
});
