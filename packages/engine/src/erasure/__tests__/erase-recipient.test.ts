import { createHash, randomBytes } from "node:crypto";
import { createServer, type AddressInfo, type Server } from "node:net";
import { parseConfig } from "@svc/config";
import { AppError, newId, type Principal } from "@svc/core";
import { createLogCapture, createLogger } from "@svc/log";
import { createQueues, jobIdFor, queueOf, type JobName, type JobPayload, type Queues } from "@svc/queue";
import type { PrismaClient } from "@svc/store";
import { createTestDatabase, testRedisPrefix, type TestDatabase, type TestRedisPrefix } from "@svc/testkit";
import { eraseRecipient, type EraseDeps } from "../erase-recipient";

// Erasure (docs/erasure.md): in one transaction every row keyed to the person goes, others' rows
// stay; a text STOP is kept as the SHA-256 of the E.164 number with the last keyword; inbound
// replies go unless someone else still has the number; backends hear `recipient.erased` and the
// person's inbox streams are told to close; their queued jobs are removed after the commit, and an
// unreachable Redis neither undoes the erasure nor holds up its answer.

let db: TestDatabase;
let prisma: PrismaClient;
let redis: TestRedisPrefix;
let queues: Queues;
const log = createLogCapture();
const logger = createLogger({ service: "erasure-test", level: "warn", stream: log.stream });
const config = parseConfig({
  channels: {
    email: { provider: "console" },
    sms: { provider: "console" },
    whatsapp: { provider: "console" },
  },
  compliance: { sms_channels: ["sms"] },
});
const BACKEND: Principal = { keyId: "key_admin1", keyName: "admin", scopes: ["admin"], agentKey: null };
const NOW = new Date("2025-07-01T10:00:00.000Z");
const DAY = 86_400_000;

beforeAll(async () => {
  db = await createTestDatabase("engine_erasure");
  prisma = db.prisma;
  redis = testRedisPrefix("engine_erasure");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  // Policy jobs are removed for every rule there is, not only for the rules an outcome names.
  await prisma.rule.create({
    data: {
      key: "paid-elsewhere",
      event: "order.paid",
      template: "t",
      category: "transactional",
      channels: ["email"],
    },
  });
  await prisma.webhookEndpoint.create({
    data: { id: newId("webhook"), url: "https://hooks.example.com/svc", events: ["*"], secret_salt: "salt" },
  });
});
afterAll(async () => {
  await queues.close();
  await redis.cleanup();
  await db.drop();
});

const deps = (overrides: Partial<EraseDeps> = {}): EraseDeps => ({
  prisma,
  config,
  queues,
  logger,
  now: () => NOW,
  ...overrides,
});

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error: unknown = await promise.then(
    () => new Error("expected a refusal"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

async function makePerson(
  externalId: string,
  addresses: { channel: string; value: string }[] = [],
  muted: string[] = [],
) {
  return prisma.recipient.create({
    data: {
      id: newId("recipient"),
      external_id: externalId,
      muted_channels: muted,
      addresses: { create: addresses },
    },
  });
}

async function ledgerKeyword(recipientId: string, keyword: string, at: Date) {
  await prisma.consentEntry.create({
    data: {
      id: newId("ledger"),
      recipient_id: recipientId,
      source: "sms_keyword",
      changes: { muted_channels: { added: ["sms"], removed: [] } },
      provenance: { method: "sms_reply", keyword, from: "+13055550100", provider: "twilio" },
      created_at: at,
    },
  });
}

async function inboundReply(from: string) {
  return prisma.inboundReply.create({
    data: {
      id: newId("inbound"),
      provider: "twilio",
      provider_message_id: `SM${randomBytes(8).toString("hex")}`,
      from,
      body: "STOP",
      keyword: "stop",
      action: "stop",
    },
  });
}

/** A person with a row in every table keyed to them, and a queued job of every kind. */
async function seed(externalId: string, number: string) {
  const person = await makePerson(externalId, [
    { channel: "email", value: `${externalId}@example.com` },
    { channel: "sms", value: number },
  ]);
  const other = { recipient_id: person.id };
  await prisma.preferenceToken.create({
    data: { ...other, nonce: randomBytes(8).toString("hex"), token_hash: randomBytes(32).toString("hex") },
  });
  const entry = await prisma.consentEntry.create({
    data: { id: newId("ledger"), ...other, source: "api", changes: {}, provenance: { method: "form" } },
  });
  await prisma.consent.create({
    data: { ...other, category: "marketing", entry_id: entry.id, recorded_at: NOW },
  });
  await prisma.fatigueState.create({ data: { ...other, category: "marketing", sent_since_engagement: 2 } });
  const event = await prisma.event.create({
    data: {
      id: newId("event"),
      name: "order.paid",
      sender: "backend",
      recipient_id: person.id,
      recipient_external_id: externalId,
      status: "processed",
    },
  });
  const pending = await prisma.event.create({
    data: { id: newId("event"), name: "order.paid", sender: "backend", recipient_external_id: externalId },
  });
  const message = await prisma.message.create({
    data: {
      id: newId("message"),
      status: "queued",
      recipient_id: person.id,
      recipient_external_id: externalId,
      sender: "backend",
      category: "marketing",
      importance: "normal",
      claimed_importance: "normal",
      channels: ["email"],
      send_at: new Date(NOW.getTime() + DAY),
      link_nonce: "n",
      event_id: event.id,
      generation: 2,
    },
  });
  await prisma.eventOutcome.create({
    data: {
      event_id: event.id,
      rule_key: "paid-mail",
      position: 0,
      matched: true,
      message_id: message.id,
      status: "queued",
    },
  });
  await prisma.deliveryAttempt.create({
    data: { id: newId("attempt"), message_id: message.id, channel: "email", provider: "console", ok: false },
  });
  await prisma.engagement.create({ data: { message_id: message.id, type: "opened", source: "api" } });
  const digest = await prisma.digest.create({
    data: {
      id: newId("digest"),
      rule_key: "paid-digest",
      recipient_id: person.id,
      recipient_external_id: externalId,
      key: "k",
      closes_at: new Date(NOW.getTime() + DAY),
    },
  });
  await prisma.digestItem.create({
    data: { digest_id: digest.id, event_id: event.id, position: 0, data: { n: 1 }, event_at: NOW },
  });
  await prisma.reviewLink.create({
    data: {
      id: newId("reviewLink"),
      token_hash: randomBytes(32).toString("hex"),
      nonce: "n",
      message_id: message.id,
      reviewer: "some-reviewer",
      expires_at: new Date(NOW.getTime() + DAY),
    },
  });
  const callback = await prisma.callbackDelivery.create({
    data: { id: newId("callback"), kind: "message", subject_id: message.id, body: {} },
  });
  const endpoint = await prisma.webhookEndpoint.findFirstOrThrow();
  await prisma.webhookDelivery.create({
    data: {
      id: newId("webhookDelivery"),
      endpoint_id: endpoint.id,
      event_id: `whe_${randomBytes(8).toString("hex")}`,
      type: "message.queued",
      body: "{}",
      recipient_id: person.id,
    },
  });
  await inboundReply(number.replace(/[^+\d]/g, ""));

  const jobs: { name: JobName; payload: JobPayload<JobName> }[] = [
    { name: "ingest-event", payload: { eventId: pending.id } },
    { name: "apply-policy", payload: { eventId: event.id, ruleKey: "paid-mail" } },
    { name: "apply-policy", payload: { eventId: event.id, ruleKey: "paid-elsewhere" } },
    ...[0, 1, 2].map((generation) => ({
      name: "deliver-message" as const,
      payload: { messageId: message.id, generation },
    })),
    { name: "screen-message", payload: { messageId: message.id, generation: 2 } },
    { name: "close-digest", payload: { digestId: digest.id } },
    { name: "send-callback", payload: { callbackId: callback.id } },
  ];
  for (const job of jobs) await queues.enqueue(job.name, job.payload as never, { delay: DAY });
  return { person, event, pending, message, digest, callback, jobs };
}

const jobExists = async (job: { name: JobName; payload: JobPayload<JobName> }) =>
  (await queues.queue(queueOf(job.name)).getJob(jobIdFor(job.name, job.payload as never))) !== undefined;

/** Rows keyed to a person, table by table. */
async function rowsOf(person: { id: string; external_id: string }, messageId: string, eventIds: string[]) {
  const mine = { recipient_id: person.id };
  return {
    recipients: await prisma.recipient.count({ where: { id: person.id } }),
    addresses: await prisma.address.count({ where: mine }),
    preference_tokens: await prisma.preferenceToken.count({ where: mine }),
    consent_entries: await prisma.consentEntry.count({ where: mine }),
    consents: await prisma.consent.count({ where: mine }),
    fatigue_states: await prisma.fatigueState.count({ where: mine }),
    events: await prisma.event.count({ where: { id: { in: eventIds } } }),
    event_outcomes: await prisma.eventOutcome.count({ where: { event_id: { in: eventIds } } }),
    messages: await prisma.message.count({ where: { id: messageId } }),
    delivery_attempts: await prisma.deliveryAttempt.count({ where: { message_id: messageId } }),
    engagements: await prisma.engagement.count({ where: { message_id: messageId } }),
    digests: await prisma.digest.count({ where: mine }),
    digest_items: await prisma.digestItem.count({ where: { event_id: { in: eventIds } } }),
    review_links: await prisma.reviewLink.count({ where: { message_id: messageId } }),
    callback_deliveries: await prisma.callbackDelivery.count({ where: { subject_id: messageId } }),
    webhook_deliveries: await prisma.webhookDelivery.count({ where: mine }),
  };
}

it("deletes every row keyed to the person and their queued jobs; the other person's rows and jobs stay", async () => {
  const gone = await seed("erase-me", "+15551230001");
  const kept = await seed("keep-me", "+15551230002");
  const goneIds = [gone.event.id, gone.pending.id];
  const keptIds = [kept.event.id, kept.pending.id];
  const keptBefore = await rowsOf(kept.person, kept.message.id, keptIds);
  expect(Object.values(keptBefore).every((n) => n > 0)).toBe(true);
  expect(Object.values(await rowsOf(gone.person, gone.message.id, goneIds)).every((n) => n > 0)).toBe(true);

  await eraseRecipient(deps(), BACKEND, "erase-me");

  const after = await rowsOf(gone.person, gone.message.id, goneIds);
  expect(Object.entries(after).filter(([, n]) => n > 0)).toEqual([]);
  expect(await prisma.inboundReply.count({ where: { from: "+15551230001" } })).toBe(0);
  for (const job of gone.jobs) expect(await jobExists(job)).toBe(false);

  expect(await rowsOf(kept.person, kept.message.id, keptIds)).toEqual(keptBefore);
  expect(await prisma.inboundReply.count({ where: { from: "+15551230002" } })).toBe(1);
  for (const job of kept.jobs) expect(await jobExists(job)).toBe(true);

  // A second erasure finds nobody.
  const again = await refusal(eraseRecipient(deps(), BACKEND, "erase-me"));
  expect({ code: again.code, status: again.status }).toEqual({ code: "not_found", status: 404 });
});

it("tells backends `recipient.erased` (data frozen at now) and closes the person's inbox streams, in the same transaction", async () => {
  const person = await makePerson("erase-outbox");
  await prisma.outboxEntry.deleteMany({});
  await eraseRecipient(deps(), BACKEND, "erase-outbox");
  const entries = await prisma.outboxEntry.findMany({ orderBy: { id: "asc" } });
  expect(entries.map(({ topic, payload, notify }) => ({ topic, payload, notify }))).toEqual([
    { topic: "inbox.revoked", payload: { recipient_id: person.id }, notify: `inbox:${person.id}` },
    {
      topic: "webhook.event",
      payload: {
        type: "recipient.erased",
        occurred_at: NOW.toISOString(),
        subject: { kind: "recipient", id: person.id },
        snapshot: { external_id: "erase-outbox", source: "api", changes: {}, created_at: NOW.toISOString() },
      },
      notify: null,
    },
  ]);
});

it("keeps a text STOP as the SHA-256 of the E.164 number with the newest keyword; nothing else about the person", async () => {
  const texts = await makePerson("stop-formatted", [{ channel: "sms", value: "+1 (305) 555-0100" }], ["sms"]);
  await ledgerKeyword(texts.id, "stop", new Date(NOW.getTime() - 2 * DAY));
  await ledgerKeyword(texts.id, "quit", new Date(NOW.getTime() - DAY));
  await makePerson("stop-default", [{ channel: "sms", value: "0044 20 7946 0018" }], ["sms"]);
  await makePerson("not-muted", [{ channel: "sms", value: "+15550000001" }]);
  await makePerson(
    "muted-elsewhere",
    [{ channel: "whatsapp", value: "+15550000002" }],
    ["whatsapp", "email"],
  );
  await makePerson("not-a-number", [{ channel: "sms", value: "ann's phone" }], ["sms"]);
  const before = await prisma.smsSuppression.count();

  for (const id of ["stop-formatted", "stop-default", "not-muted", "muted-elsewhere", "not-a-number"])
    await eraseRecipient(deps(), BACKEND, id);

  const rows = await prisma.smsSuppression.findMany({ orderBy: { keyword: "asc" } });
  expect(rows).toEqual([
    { phone_sha256: sha256("+13055550100"), keyword: "quit", created_at: NOW },
    { phone_sha256: sha256("+442079460018"), keyword: "stop", created_at: NOW },
  ]);
  expect(rows.length - before).toBe(2);
});

it("a number already on the suppression list keeps its entry (the STOP that put it there)", async () => {
  const earlier = new Date(NOW.getTime() - 30 * DAY);
  await prisma.smsSuppression.create({
    data: { phone_sha256: sha256("+15550000099"), keyword: "end", created_at: earlier },
  });
  const p = await makePerson("already-listed", [{ channel: "sms", value: "+15550000099" }], ["sms"]);
  await ledgerKeyword(p.id, "cancel", new Date(NOW.getTime() - DAY));
  await eraseRecipient(deps(), BACKEND, "already-listed");
  expect(await prisma.smsSuppression.findUnique({ where: { phone_sha256: sha256("+15550000099") } })).toEqual(
    {
      phone_sha256: sha256("+15550000099"),
      keyword: "end",
      created_at: earlier,
    },
  );
});

it("erases inbound replies from the person's text numbers unless another person still has the number", async () => {
  await makePerson("replier", [
    { channel: "sms", value: "+15557770001" },
    { channel: "sms", value: "+15557770002" },
    { channel: "email", value: "+15557770003" },
  ]);
  // Someone else has the second number, written another way and on another channel.
  await makePerson("housemate", [{ channel: "whatsapp", value: "+1 555 777 0002" }]);
  for (const from of ["+15557770001", "+15557770002", "+15557770003", "+15557770004"])
    await inboundReply(from);

  await eraseRecipient(deps(), BACKEND, "replier");
  const left = await prisma.inboundReply.findMany({
    where: { from: { startsWith: "+1555777" } },
    orderBy: { from: "asc" },
  });
  // The e-mail "address" is no text number of theirs: its replies are not theirs to erase.
  expect(left.map((r) => r.from)).toEqual(["+15557770002", "+15557770003", "+15557770004"]);
});

it("erases review links addressed to the person as a reviewer, on anyone's messages", async () => {
  const author = await seed("author", "+15551230011");
  await makePerson("the-reviewer");
  const link = (reviewer: string) =>
    prisma.reviewLink.create({
      data: {
        id: newId("reviewLink"),
        token_hash: randomBytes(32).toString("hex"),
        nonce: "n",
        message_id: author.message.id,
        reviewer,
        expires_at: new Date(NOW.getTime() + DAY),
      },
    });
  const theirs = await link("the-reviewer");
  const someoneElses = await link("another-reviewer");
  await eraseRecipient(deps(), BACKEND, "the-reviewer");
  expect(await prisma.reviewLink.findUnique({ where: { id: theirs.id } })).toBeNull();
  expect(await prisma.reviewLink.findUnique({ where: { id: someoneElses.id } })).not.toBeNull();
  // The author's own message and its rows are untouched.
  expect(await prisma.message.count({ where: { id: author.message.id } })).toBe(1);
});

it("erases a person known only from an accepted event (no profile): the event goes, nothing is announced", async () => {
  const pending = await prisma.event.create({
    data: {
      id: newId("event"),
      name: "user.signed_up",
      sender: "backend",
      recipient_external_id: "only-event",
    },
  });
  await queues.enqueue("ingest-event", { eventId: pending.id }, { delay: DAY });
  await prisma.outboxEntry.deleteMany({});
  await eraseRecipient(deps(), BACKEND, "only-event");
  expect(await prisma.event.findUnique({ where: { id: pending.id } })).toBeNull();
  expect(await jobExists({ name: "ingest-event", payload: { eventId: pending.id } })).toBe(false);
  expect(await prisma.outboxEntry.count()).toBe(0);
  const again = await refusal(eraseRecipient(deps(), BACKEND, "only-event"));
  expect({ code: again.code, status: again.status }).toEqual({ code: "not_found", status: 404 });
});

it("403 for an agent key and 404 for nobody, both changing nothing", async () => {
  const person = await makePerson("agent-target", [{ channel: "sms", value: "+15551239999" }], ["sms"]);
  const agent: Principal = {
    ...BACKEND,
    keyId: "key_bot",
    scopes: ["recipients:write"],
    agentKey: "helper-bot",
  };
  const forbidden = await refusal(eraseRecipient(deps(), agent, "agent-target"));
  expect({ code: forbidden.code, status: forbidden.status }).toEqual({ code: "forbidden", status: 403 });
  expect(await prisma.recipient.count({ where: { id: person.id } })).toBe(1);
  expect(await prisma.smsSuppression.count({ where: { phone_sha256: sha256("+15551239999") } })).toBe(0);

  const missing = await refusal(eraseRecipient(deps(), BACKEND, "nobody-at-all"));
  expect({ code: missing.code, status: missing.status }).toEqual({ code: "not_found", status: 404 });
});

it("with Redis unreachable the erasure stands and the call returns, the jobs left with a warning", async () => {
  // A port where no Redis is: a listener opened and closed again.
  const probe: Server = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const down = createQueues({ redisUrl: `redis://127.0.0.1:${port}`, prefix: redis.prefix });
  try {
    const { person, message, event } = await seed("erase-offline", "+15551230021");
    const warningsBefore = log.entries().filter((e) => e.level === "warn").length;
    const started = Date.now();
    await eraseRecipient(deps({ queues: down }), BACKEND, "erase-offline");
    // It returned without Redis (BullMQ alone would wait for the connection as long as it takes).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await prisma.recipient.count({ where: { id: person.id } })).toBe(0);
    expect(await prisma.message.count({ where: { id: message.id } })).toBe(0);
    expect(await prisma.event.count({ where: { id: event.id } })).toBe(0);
    const warnings = log
      .entries()
      .filter((e) => e.level === "warn")
      .slice(warningsBefore);
    expect(warnings.map((e) => e.message)).toEqual(["erasure: could not remove queued jobs"]);
  } finally {
    await down.close();
  }
});
