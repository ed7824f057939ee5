import { linkTokenHash } from "@svc/core";
import { waitFor } from "@svc/testkit";
import { attemptsOf, makePerson, queuedMessage, startBench, type Bench } from "./delivery-fixtures";

// The `deliver-message` job end to end: real Postgres, Redis, BullMQ worker, and webhook providers
// posting to a local HTTP server that answers 200/503/400 as each test scripts it.

let bench: Bench;

beforeAll(async () => {
  bench = await startBench("delivery_job");
  bench.startWorker();
});
afterAll(() => bench.close());

async function deliver(message: { id: string; generation: number }) {
  await bench.queues.enqueue("deliver-message", { messageId: message.id, generation: message.generation });
}

async function finalState(id: string, timeoutMs = 8000) {
  return waitFor(
    async () => {
      const row = await bench.prisma.message.findUniqueOrThrow({ where: { id } });
      return ["sent", "delivered", "failed", "suppressed", "cancelled"].includes(row.status) ? row : null;
    },
    { timeoutMs, what: `message ${id} final` },
  );
}

const ok = (channel: string, address: string) => ({
  channel,
  provider: "webhook",
  address,
  ok: true,
  retryable: false,
  error: null,
});
const fail = (channel: string, address: string, status: number) => ({
  channel,
  provider: "webhook",
  address,
  ok: false,
  retryable: status >= 500,
  error: `webhook ${status}`,
});

test("fallback: the first channel fails permanently (400), the second sends; attempts in order", async () => {
  const person = await makePerson(bench.prisma, [
    { channel: "sms", value: "+15550000001" },
    { channel: "email", value: "fallback@example.com" },
  ]);
  bench.hooks.script("+15550000001", [400]);
  const message = await queuedMessage(bench.prisma, person, { channels: ["sms", "email"] });
  await deliver(message);
  const row = await finalState(message.id);
  expect(row).toMatchObject({ status: "sent", status_reason: null, channel: "email", lease_until: null });
  expect(row.sent_at).not.toBeNull();
  expect(await attemptsOf(bench.prisma, message.id)).toEqual([
    fail("sms", "+15550000001", 400),
    ok("email", "fallback@example.com"),
  ]);
  // The message id is the provider's idempotency key.
  expect(bench.hooks.to("fallback@example.com")[0]?.idempotencyKey).toBe(message.id);
});

test("a retryable error (503) is retried on the same channel, which then accepts", async () => {
  const person = await makePerson(bench.prisma, [
    { channel: "sms", value: "+15550000002" },
    { channel: "email", value: "never@example.com" },
  ]);
  bench.hooks.script("+15550000002", [503, 200]);
  const message = await queuedMessage(bench.prisma, person, { channels: ["sms", "email"] });
  await deliver(message);
  const row = await finalState(message.id);
  expect(row).toMatchObject({ status: "sent", channel: "sms", generation: 1, delivery_attempts: 2 });
  expect(await attemptsOf(bench.prisma, message.id)).toEqual([
    fail("sms", "+15550000002", 503),
    ok("sms", "+15550000002"),
  ]);
  expect(bench.hooks.to("never@example.com")).toHaveLength(0);
});

test("retries resume at the failing channel and skip channels that already failed permanently", async () => {
  const person = await makePerson(bench.prisma, [
    { channel: "sms", value: "+15550000003" },
    { channel: "email", value: "resume@example.com" },
  ]);
  bench.hooks.script("+15550000003", [400]);
  bench.hooks.script("resume@example.com", [503, 503, 200]);
  const message = await queuedMessage(bench.prisma, person, { channels: ["sms", "email"] });
  await deliver(message);
  const row = await finalState(message.id);
  expect(row).toMatchObject({ status: "sent", channel: "email" });
  expect(await attemptsOf(bench.prisma, message.id)).toEqual([
    fail("sms", "+15550000003", 400),
    fail("email", "resume@example.com", 503),
    fail("email", "resume@example.com", 503),
    ok("email", "resume@example.com"),
  ]);
  expect(bench.hooks.to("+15550000003")).toHaveLength(1);
});

test("retries run out after worker.max_attempts (3): failed with `gave up: <error>`", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "sms", value: "+15550000004" }]);
  bench.hooks.script("+15550000004", [503]);
  const message = await queuedMessage(bench.prisma, person, { channels: ["sms"] });
  await deliver(message);
  const row = await finalState(message.id);
  expect(row).toMatchObject({ status: "failed", status_reason: "gave up: webhook 503", lease_until: null });
  expect(await attemptsOf(bench.prisma, message.id)).toEqual([
    fail("sms", "+15550000004", 503),
    fail("sms", "+15550000004", 503),
    fail("sms", "+15550000004", 503),
  ]);
});

test("every channel failing permanently: the provider errors joined by `; `, one per channel", async () => {
  const person = await makePerson(bench.prisma, [
    { channel: "sms", value: "+15550000005" },
    { channel: "email", value: "gone@example.com" },
  ]);
  bench.hooks.script("+15550000005", [400]);
  bench.hooks.script("gone@example.com", [422]);
  const message = await queuedMessage(bench.prisma, person, { channels: ["sms", "email"] });
  await deliver(message);
  expect(await finalState(message.id)).toMatchObject({
    status: "failed",
    status_reason: "webhook 400; webhook 422",
  });
  expect(await attemptsOf(bench.prisma, message.id)).toEqual([
    fail("sms", "+15550000005", 400),
    fail("email", "gone@example.com", 422),
  ]);
});

test("multi-device: both phones are sent to; one 400 and one 200 is sent, with both attempts", async () => {
  const person = await makePerson(bench.prisma, [
    { channel: "sms", value: "+15550000061" },
    { channel: "sms", value: "+15550000062" },
    { channel: "sms", value: "+15550000063", enabled: false },
  ]);
  bench.hooks.script("+15550000061", [400]);
  const message = await queuedMessage(bench.prisma, person, { channels: ["sms"] });
  await deliver(message);
  expect(await finalState(message.id)).toMatchObject({ status: "sent", channel: "sms" });
  const attempts = await attemptsOf(bench.prisma, message.id);
  expect(attempts.sort((a, b) => a.address!.localeCompare(b.address!))).toEqual([
    fail("sms", "+15550000061", 400),
    ok("sms", "+15550000062"),
  ]);
  expect(bench.hooks.to("+15550000063")).toHaveLength(0);
});

test.each([
  [
    "no enabled address on any planned channel",
    [
      { channel: "email", value: "x@example.com" },
      { channel: "sms", value: "+15550000070", enabled: false },
    ],
    {},
  ],
  [
    "every planned channel muted since composing",
    [{ channel: "sms", value: "+15550000071" }],
    { muted_channels: ["sms"] },
  ],
])("nothing reachable at send time (%s): failed / no_reachable_channel", async (_name, addresses, extra) => {
  const person = await makePerson(bench.prisma, addresses, extra);
  const message = await queuedMessage(bench.prisma, person, { channels: ["sms"] });
  await deliver(message);
  expect(await finalState(message.id)).toMatchObject({
    status: "failed",
    status_reason: "no_reachable_channel",
  });
  expect(await attemptsOf(bench.prisma, message.id)).toEqual([]);
});

test("a muted channel is dropped from the plan; the next one sends", async () => {
  const person = await makePerson(
    bench.prisma,
    [
      { channel: "sms", value: "+15550000072" },
      { channel: "email", value: "muted-sms@example.com" },
    ],
    { muted_channels: ["sms"] },
  );
  const message = await queuedMessage(bench.prisma, person, { channels: ["sms", "email"] });
  await deliver(message);
  expect(await finalState(message.id)).toMatchObject({ status: "sent", channel: "email" });
  expect(bench.hooks.to("+15550000072")).toHaveLength(0);
});

test("the console provider writes one JSON line and accepts", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "push", value: "device-token-1" }]);
  const message = await queuedMessage(bench.prisma, person, { channels: ["push"] });
  await deliver(message);
  expect(await finalState(message.id)).toMatchObject({ status: "sent", channel: "push" });
  const line = bench.consoleLines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.id === message.id);
  expect(line).toMatchObject({
    provider: "console",
    channel: "push",
    to: "device-token-1",
    content: { title: "Hello", body: "Body" },
  });
  expect(await attemptsOf(bench.prisma, message.id)).toEqual([
    {
      channel: "push",
      provider: "console",
      address: "device-token-1",
      ok: true,
      retryable: false,
      error: null,
    },
  ]);
});

test("links: placeholders are filled only in what the provider gets; the tracking token matches the stored hash", async () => {
  await bench.prisma.category.create({ data: { key: "digest-news", allow_unsubscribe: true } });
  const person = await makePerson(bench.prisma, [{ channel: "email", value: "links@example.com" }]);
  const content = {
    title: "News",
    body: "Leave: [[svc:unsubscribe_url]] Settings: [[svc:preferences_url]]",
    url: null,
    thread: null,
    locale: "en",
    channel: "email",
  };
  const message = await queuedMessage(bench.prisma, person, {
    channels: ["email"],
    category: "digest-news",
    content,
  });
  await deliver(message);
  const row = await finalState(message.id);
  expect(row.status).toBe("sent");
  expect(row.content).toEqual(content);
  const [received] = bench.hooks.to("links@example.com");
  const body = (received?.body.content as { body: string }).body;
  expect(body).toMatch(
    /^Leave: https:\/\/svc\.example\/preferences\/[A-Za-z0-9_-]{43} Settings: https:\/\/svc\.example\/preferences\/[A-Za-z0-9_-]{43}$/,
  );
  const token = received?.body.tracking_token as string;
  expect(linkTokenHash(token)).toBe(row.tracking_token_hash);
});

describe("re-checks right before sending", () => {
  test.each([
    [
      "unsubscribed from a category that allows it",
      { unsubscribed: true, category: "news-a" },
      { status: "suppressed", status_reason: "unsubscribed" },
    ],
    [
      "unsubscribed, but the category forbids unsubscribing",
      { unsubscribed: true, category: "transactional" },
      { status: "sent", status_reason: null },
    ],
    [
      "consent expired",
      { consentExpired: true, category: "news-b" },
      { status: "suppressed", status_reason: "consent_expired" },
    ],
    ["expires_at passed while queued", { expired: true }, { status: "suppressed", status_reason: "expired" }],
    [
      "agent disabled",
      { agent: { enabled: false } },
      { status: "suppressed", status_reason: "agent_not_allowed" },
    ],
    [
      "agent no longer allowed the category",
      { agent: { categories: ["other"] } },
      { status: "suppressed", status_reason: "agent_not_allowed" },
    ],
    ["agent deleted", { agent: { deleted: true } }, { status: "suppressed", status_reason: "agent_deleted" }],
    ["agent still allowed", { agent: {} }, { status: "sent", status_reason: null }],
  ] as const)("%s", async (name, setup, expected) => {
    const s = setup as {
      unsubscribed?: boolean;
      category?: string;
      consentExpired?: boolean;
      expired?: boolean;
      agent?: { enabled?: boolean; categories?: string[]; deleted?: boolean };
    };
    const category = s.category ?? "transactional";
    if (category !== "transactional")
      await bench.prisma.category.create({ data: { key: `${category}-${name.length}` } });
    const categoryKey = category === "transactional" ? category : `${category}-${name.length}`;
    const address = `recheck-${name.replace(/\W+/g, "-")}@example.com`;
    const person = await makePerson(bench.prisma, [{ channel: "email", value: address }]);
    let agentKey: string | null = null;
    if (s.agent) {
      agentKey = `agent-${name.replace(/\W+/g, "-")}`;
      await bench.prisma.agent.create({ data: { key: agentKey, name: "Helper" } });
    }
    const message = await queuedMessage(bench.prisma, person, {
      channels: ["email"],
      category: categoryKey,
      agent_key: agentKey,
      expires_at: s.expired ? new Date(Date.now() + 300) : null,
    });
    // Everything below happens after the message was queued.
    if (s.unsubscribed)
      await bench.prisma.recipient.update({
        where: { id: person.id },
        data: { unsubscribed_categories: [categoryKey] },
      });
    if (s.consentExpired) {
      await bench.prisma.consent.create({
        data: {
          recipient_id: person.id,
          category: categoryKey,
          entry_id: "cns_x",
          recorded_at: new Date(),
          expires_at: new Date(Date.now() - 1000),
        },
      });
    }
    if (agentKey && s.agent) {
      await bench.prisma.agent.update({
        where: { key: agentKey },
        data: {
          enabled: s.agent.enabled ?? true,
          ...(s.agent.categories ? { categories: s.agent.categories } : {}),
          deleted_at: s.agent.deleted ? new Date() : null,
        },
      });
    }
    if (s.expired) await new Promise((resolve) => setTimeout(resolve, 400));
    await deliver(message);
    expect(await finalState(message.id)).toMatchObject(expected);
    expect(bench.hooks.to(address)).toHaveLength(expected.status === "sent" ? 1 : 0);
  });
});

describe("claim", () => {
  test("a job of an older generation is a no-op", async () => {
    const person = await makePerson(bench.prisma, [{ channel: "email", value: "stale@example.com" }]);
    const message = await queuedMessage(bench.prisma, person, { channels: ["email"] });
    await bench.prisma.message.update({ where: { id: message.id }, data: { generation: 2 } });
    await bench.queues.enqueue("deliver-message", { messageId: message.id, generation: 1 });
    await waitFor(
      async () => (await bench.queues.queue("delivery").getJob(`${message.id}-1`))?.finishedOn !== undefined,
    );
    expect(await bench.prisma.message.findUniqueOrThrow({ where: { id: message.id } })).toMatchObject({
      status: "queued",
      generation: 2,
    });
    expect(bench.hooks.to("stale@example.com")).toHaveLength(0);
  });

  test("a job that runs before send_at waits under the next generation, then sends once", async () => {
    const person = await makePerson(bench.prisma, [{ channel: "email", value: "early@example.com" }]);
    const sendAt = new Date(Date.now() + 700);
    const message = await queuedMessage(bench.prisma, person, { channels: ["email"], send_at: sendAt });
    await deliver(message); // no delay: runs early
    const row = await finalState(message.id);
    expect(row).toMatchObject({ status: "sent", generation: 1 });
    expect(row.sent_at!.getTime()).toBeGreaterThanOrEqual(sendAt.getTime());
    expect(bench.hooks.to("early@example.com")).toHaveLength(1);
  });

  test("final and cancelled messages are left alone", async () => {
    const person = await makePerson(bench.prisma, [{ channel: "email", value: "cancelled@example.com" }]);
    const message = await queuedMessage(bench.prisma, person, { channels: ["email"] });
    await bench.prisma.message.update({
      where: { id: message.id },
      data: { status: "cancelled", status_reason: "cancelled via API" },
    });
    await deliver(message);
    await waitFor(
      async () => (await bench.queues.queue("delivery").getJob(`${message.id}-0`))?.finishedOn !== undefined,
    );
    expect(await bench.prisma.message.findUniqueOrThrow({ where: { id: message.id } })).toMatchObject({
      status: "cancelled",
    });
    expect(bench.hooks.to("cancelled@example.com")).toHaveLength(0);
  });
});

test("the fatigue probe is dated by when it really went out", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "email", value: "probe@example.com" }]);
  const message = await queuedMessage(bench.prisma, person, { channels: ["email"] });
  await bench.prisma.fatigueState.create({
    data: {
      recipient_id: person.id,
      category: "transactional",
      sent_since_engagement: 4,
      probe_message_id: message.id,
      probe_sent_at: message.send_at,
    },
  });
  await deliver(message);
  const row = await finalState(message.id);
  const state = await bench.prisma.fatigueState.findUniqueOrThrow({
    where: { recipient_id_category: { recipient_id: person.id, category: "transactional" } },
  });
  expect(state.probe_sent_at).toEqual(row.sent_at);
});

test("a delivery receipt reported while the message was still sending applies once it is sent", async () => {
  const person = await makePerson(bench.prisma, [{ channel: "email", value: "receipt@example.com" }]);
  const message = await queuedMessage(bench.prisma, person, { channels: ["email"] });
  await bench.prisma.engagement.create({
    data: { message_id: message.id, type: "delivered", source: "track" },
  });
  await deliver(message);
  const row = await finalState(message.id);
  expect(row).toMatchObject({ status: "delivered", channel: "email" });
  expect(row.delivered_at).toEqual(row.sent_at);
});
