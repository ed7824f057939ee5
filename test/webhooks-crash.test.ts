import { randomBytes } from "node:crypto";
import { newId } from "@svc/core";
import { createApiKey } from "@svc/engine";
import { createPrisma } from "@svc/store";
import { freePort, reserveTestDatabase, SourceProcesses, waitFor } from "@svc/testkit";
import { pythonVerifies, WebhookReceiver } from "../apps/api/src/__tests__/webhook-receiver";

// A crash between the status write and the send (docs/webhooks.md "Delivery that loses nothing"):
// real API and worker processes; the worker is SIGKILLed while messages are being sent and their
// webhooks are in flight to a receiver that does not answer. A second worker then sends every
// `message.sent` event: one event id per sent message (repeats of an id allowed, receivers drop
// them), none for a message that was not sent, every post signed.

// The processes under test create and migrate it; afterAll drops it.
const database = reserveTestDatabase("webhooks_crash");
const { databaseUrl } = database;
const env = {
  PATH: process.env.PATH,
  DATABASE_URL: databaseUrl,
  REDIS_URL: process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379",
  SVC_SECRET_KEY: randomBytes(32).toString("base64url"),
  SVC__REDIS__PREFIX: `svc-test-webhooks-crash-${randomBytes(3).toString("hex")}`,
  SVC__CHANNELS__EMAIL__PROVIDER: "console",
  SVC__WORKER__EMBEDDED: "false",
  SVC__WORKER__SWEEP_SECONDS: "1",
  SVC__WORKER__LOCK_MS: "2000",
  SVC__WEBHOOKS__ALLOW_PRIVATE_URLS: "true",
  SVC__WEBHOOKS__TIMEOUT_SECONDS: "2",
  SVC__LOG__LEVEL: "error",
};
let receiver: WebhookReceiver;
const processes = new SourceProcesses(env);
const start = (entry: string, extra: Record<string, string> = {}) => processes.start(entry, extra);
const answers = (url: string) => processes.answers(url);

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
});
afterAll(async () => {
  processes.killAll();
  await receiver.close();
  await database.drop();
}, 60_000);

it("a worker killed mid-send loses no message.sent event and invents none", async () => {
  const [api, metrics1, metrics2] = [await freePort(), await freePort(), await freePort()];
  start("apps/api/src/main.ts", { PORT: String(api) });
  await answers(`http://127.0.0.1:${api}/readyz`);
  const prisma = createPrisma({ databaseUrl });
  try {
    const { key } = await createApiKey(
      { prisma, now: () => new Date() },
      { name: "t", scopes: ["admin"], agent: null },
    );
    const call = async (method: string, route: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${api}${route}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> };
    };
    const created = await call("POST", "/v1/webhooks", {
      url: receiver.url("/crash"),
      events: ["message.sent"],
    });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    await prisma.template.create({
      data: { key: "hello", locales: { en: { title: "Hi", body: "{{ data.n }}" } } },
    });
    receiver.hang("/crash");

    const worker1 = start("apps/worker/src/main.ts", { SVC__WORKER__METRICS_PORT: String(metrics1) });
    await answers(`http://127.0.0.1:${metrics1}/metrics`);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      await prisma.recipient.create({
        data: {
          id: newId("recipient"),
          external_id: `crash-${i}`,
          addresses: { create: [{ channel: "email", value: `crash-${i}@example.com` }] },
        },
      });
      const sent = await call("POST", "/v1/messages", {
        recipient: `crash-${i}`,
        template: "hello",
        category: "transactional",
        channels: ["email"],
        data: { n: i },
      });
      expect(sent.status).toBe(202);
      ids.push(sent.body.id as string);
    }
    // The worker is mid-send: some webhooks are in flight to a receiver that never answers.
    await waitFor(() => receiver.to("/crash").length >= 3 || null, {
      timeoutMs: 30_000,
      what: "posts in flight",
    });
    worker1.kill("SIGKILL");
    await new Promise((resolve) => worker1.once("exit", resolve));
    const crashedAt = Date.now();
    const seenBeforeCrash = receiver.to("/crash").length;

    receiver.answer("/crash", [200]);
    start("apps/worker/src/main.ts", { SVC__WORKER__METRICS_PORT: String(metrics2) });
    // Every message ends sent, and every sent message's event reaches the receiver.
    const sentIds = await waitFor(
      async () => {
        const rows = await prisma.message.findMany({
          where: { id: { in: ids } },
          select: { id: true, status: true },
        });
        return rows.every((row) => row.status === "sent") ? rows.map((row) => row.id) : null;
      },
      { timeoutMs: 90_000, intervalMs: 500, what: "every message sent" },
    );
    const heard = await waitFor(
      () => {
        const byMessage = new Map<string, Set<string>>();
        // Posts read after the crash: those before it hung and were never answered.
        for (const post of receiver.to("/crash").filter((p) => p.at > crashedAt)) {
          const messageId = post.body.data.id as string;
          byMessage.set(messageId, (byMessage.get(messageId) ?? new Set()).add(post.body.id));
        }
        return sentIds.every((id) => byMessage.has(id)) ? byMessage : null;
      },
      { timeoutMs: 90_000, intervalMs: 500, what: "an event for every sent message" },
    );
    // On its own within a minute of the crash (the second worker's start included).
    expect((Date.now() - crashedAt) / 1000).toBeLessThanOrEqual(60);
    // None invented: only these messages, each with exactly one event id, of type message.sent.
    expect([...heard.keys()].sort()).toEqual([...sentIds].sort());
    for (const eventIds of heard.values()) expect(eventIds.size).toBe(1);
    const posts = receiver.to("/crash");
    expect(posts.every((post) => post.body.type === "message.sent" && post.body.data.status === "sent")).toBe(
      true,
    );
    expect(pythonVerifies([secret], posts).every((verdict) => verdict[secret])).toBe(true);
    // What was in flight at the crash was sent again with the same id.
    expect(posts.length).toBeGreaterThanOrEqual(seenBeforeCrash);
    for (const early of posts.filter((post) => post.at <= crashedAt))
      expect(heard.get(early.body.data.id as string)).toEqual(new Set([early.body.id]));
    // Each answered post is recorded (the write follows the answer by a moment).
    const deliveries = await waitFor(
      async () => {
        const groups = await prisma.webhookDelivery.groupBy({ by: ["status"], _count: true });
        return groups.length === 1 && groups[0]!.status === "succeeded" ? groups : null;
      },
      { timeoutMs: 10_000, what: "every delivery recorded succeeded" },
    );
    expect(deliveries).toEqual([{ status: "succeeded", _count: 20 }]);
    expect(await prisma.outboxEntry.count()).toBe(0);
  } finally {
    await prisma.$disconnect();
  }
}, 240_000);
