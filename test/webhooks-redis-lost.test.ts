import { randomBytes } from "node:crypto";
import { newId } from "@svc/core";
import { createApiKey } from "@svc/engine";
import { createPrisma } from "@svc/store";
import { freePort, reserveTestDatabase, SourceProcesses, waitFor } from "@svc/testkit";
import { pythonVerifies, WebhookReceiver } from "../apps/api/src/__tests__/webhook-receiver";
import { startOwnRedis, type OwnRedis } from "../bench/lib/faults/redis-server";

// Redis restarted empty while status webhooks wait for their retries (docs/webhooks.md "Delivery
// that loses nothing"): real API and worker processes on a Redis of this test's own (a spare port,
// never the shared one). The receiver first never answers, so every `message.sent` delivery has
// failed a try and waits for a retry job; Redis is then killed and started empty, which loses those
// jobs. The delivery rows are the truth: the requeue-webhooks sweep adds the jobs again, and every
// sent message's event arrives, once per event id and signed, within a minute of the restart.

// The processes under test create and migrate it; afterAll drops it.
const database = reserveTestDatabase("webhooks_redis");
const { databaseUrl } = database;
let redis: OwnRedis;
let processes: SourceProcesses;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  redis = await startOwnRedis(await freePort(), { appendonly: false });
  processes = new SourceProcesses({
    PATH: process.env.PATH,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    SVC_SECRET_KEY: randomBytes(32).toString("base64url"),
    SVC__REDIS__PREFIX: "svc-test-webhooks-redis",
    SVC__CHANNELS__EMAIL__PROVIDER: "console",
    SVC__WORKER__EMBEDDED: "false",
    SVC__WEBHOOKS__ALLOW_PRIVATE_URLS: "true",
    SVC__WEBHOOKS__TIMEOUT_SECONDS: "1",
    SVC__LOG__LEVEL: "error",
  });
}, 60_000);
afterAll(async () => {
  processes.killAll();
  await receiver.close();
  await redis.stop();
  await database.drop();
}, 60_000);

it("Redis restarted empty: every message.sent event still arrives, within a minute", async () => {
  const [api, metrics] = [await freePort(), await freePort()];
  processes.start("apps/api/src/main.ts", { PORT: String(api) });
  await processes.answers(`http://127.0.0.1:${api}/readyz`);
  processes.start("apps/worker/src/main.ts", { SVC__WORKER__METRICS_PORT: String(metrics) });
  await processes.answers(`http://127.0.0.1:${metrics}/metrics`);
  const prisma = createPrisma({ databaseUrl });
  try {
    const { key } = await createApiKey(
      { prisma, now: () => new Date() },
      { name: "t", scopes: ["admin"], agent: null },
    );
    const call = async (route: string, body: unknown) => {
      const res = await fetch(`http://127.0.0.1:${api}${route}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const created = await call("/v1/webhooks", { url: receiver.url("/lost"), events: ["message.sent"] });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    await prisma.template.create({
      data: { key: "hello", locales: { en: { title: "Hi", body: "{{ data.n }}" } } },
    });
    receiver.hang("/lost");
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      await prisma.recipient.create({
        data: {
          id: newId("recipient"),
          external_id: `lost-${i}`,
          addresses: { create: [{ channel: "email", value: `lost-${i}@example.com` }] },
        },
      });
      const sent = await call("/v1/messages", {
        recipient: `lost-${i}`,
        template: "hello",
        category: "transactional",
        channels: ["email"],
        data: { n: i },
      });
      expect(sent.status).toBe(202);
      ids.push(sent.body.id as string);
    }
    // Every delivery is written and its jobs are in Redis: first tries hanging on the silent
    // receiver (they time out after a second), retries and deferrals waiting as delayed jobs.
    await waitFor(
      async () =>
        ((await prisma.webhookDelivery.count({ where: { status: "pending" } })) === ids.length &&
          receiver.to("/lost").length >= 1) ||
        null,
      { timeoutMs: 60_000, intervalMs: 250, what: "every delivery written, the first tries under way" },
    );
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await redis.kill();
    await redis.start();
    const restartedAt = Date.now();
    receiver.answer("/lost", [200]);

    const heard = await waitFor(
      () => {
        const byMessage = new Map<string, Set<string>>();
        for (const post of receiver.to("/lost"))
          if (post.at > restartedAt && post.body.type === "message.sent")
            byMessage.set(
              post.body.data.id as string,
              (byMessage.get(post.body.data.id as string) ?? new Set()).add(post.body.id),
            );
        return ids.every((id) => byMessage.has(id)) ? byMessage : null;
      },
      { timeoutMs: 90_000, intervalMs: 250, what: "an event for every sent message after the restart" },
    );
    expect((Date.now() - restartedAt) / 1000).toBeLessThanOrEqual(60);
    expect([...heard.keys()].sort()).toEqual([...ids].sort());
    for (const eventIds of heard.values()) expect(eventIds.size).toBe(1);
    const answered = receiver.to("/lost").filter((post) => post.at > restartedAt);
    expect(pythonVerifies([secret], answered).every((verdict) => verdict[secret])).toBe(true);
    const rows = await waitFor(
      async () => {
        const all = await prisma.webhookDelivery.findMany({
          select: { status: true, attempts: true, last_error: true, type: true },
        });
        return all.every((row) => row.status === "succeeded") ? all : null;
      },
      { timeoutMs: 30_000, what: "every delivery recorded succeeded" },
    ).catch(async (error: Error) => {
      const all = await prisma.webhookDelivery.findMany({
        select: { status: true, attempts: true, last_error: true, type: true, next_attempt_at: true },
      });
      throw new Error(`${error.message}: ${JSON.stringify(all)}`);
    });
    expect(rows).toHaveLength(ids.length);
  } finally {
    await prisma.$disconnect();
  }
}, 240_000);
