import { parseConfig } from "@svc/config";
import { newId } from "@svc/core";
import { insertWebhookDeliveries, insertWebhookEndpoint } from "@svc/store";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { makePerson, queuedMessage } from "../../delivery/__tests__/delivery-fixtures";
import { applyRetention, retentionSweeps } from "../apply-retention";

// docs/operations.md "Data retention": settled rows older than their setting go, in batches;
// anything still moving, anything newer, and the consent ledger stay.

const DAY = 86_400_000;
const NOW = new Date("2026-06-01T12:00:00Z");
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY);
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("retention");
});
afterAll(() => db.drop());

const config = (retention: Record<string, unknown>) =>
  parseConfig({ retention: { batch_size: 2, max_batches: 50, ...retention } }, {});

async function event(created: Date, status: "pending" | "processed", keyExpires: Date | null = null) {
  return db.prisma.event.create({
    data: {
      id: newId("event"),
      name: "order.created",
      sender: "backend",
      recipient_external_id: "someone",
      status,
      created_at: created,
      idempotency_key: keyExpires ? `key-${Math.random()}` : null,
      idempotency_expires_at: keyExpires,
    },
  });
}

test("on by default for webhook deliveries only (30 days); no sweep once every setting is off", () => {
  const defaults = parseConfig({}, {});
  expect(defaults.retention).toMatchObject({
    events_days: null,
    messages_days: null,
    digests_days: null,
    webhooks_days: 30,
  });
  expect(retentionSweeps({ prisma: db.prisma, config: defaults }).map((s) => s.name)).toEqual([
    "apply-retention",
  ]);
  expect(retentionSweeps({ prisma: db.prisma, config: config({ webhooks_days: null }) })).toEqual([]);
  const on = retentionSweeps({ prisma: db.prisma, config: config({ events_days: 30, webhooks_days: null }) });
  expect(on.map((s) => [s.name, s.every])).toEqual([["apply-retention", 60_000]]);
});

test("deletes settled rows past their days in batches; keeps moving, newer and ledger rows", async () => {
  const person = await makePerson(db.prisma, [{ channel: "sms", value: "+15550007001" }]);
  const oldEvents = await Promise.all([1, 2, 3, 4, 5].map(() => event(daysAgo(40), "processed")));
  const pendingOld = await event(daysAgo(40), "pending");
  const keyHeld = await event(daysAgo(40), "processed", new Date(NOW.getTime() + DAY));
  const recent = await event(daysAgo(10), "processed");

  const message = (status: "sent" | "queued" | "failed", created: Date) =>
    queuedMessage(db.prisma, person, { channels: ["sms"] }).then((m) =>
      db.prisma.message.update({ where: { id: m.id }, data: { status, created_at: created } }),
    );
  const oldSent = await message("sent", daysAgo(100));
  const oldFailed = await message("failed", daysAgo(100));
  const oldQueued = await message("queued", daysAgo(100));
  const newSent = await message("sent", daysAgo(5));
  await db.prisma.deliveryAttempt.create({
    data: {
      id: newId("attempt"),
      message_id: oldSent.id,
      channel: "sms",
      provider: "webhook",
      ok: true,
      retryable: false,
      at: daysAgo(100),
    },
  });

  const digest = (status: "open" | "sent", created: Date) =>
    db.prisma.digest.create({
      data: {
        id: newId("digest"),
        rule_key: "r",
        recipient_id: person.id,
        recipient_external_id: person.external_id,
        key: `k-${Math.random()}`,
        status,
        closes_at: created,
        created_at: created,
      },
    });
  const oldDigest = await digest("sent", daysAgo(20));
  const openDigest = await digest("open", daysAgo(20));

  await db.prisma.consentEntry.create({
    data: {
      id: newId("ledger"),
      recipient_id: person.id,
      source: "api",
      changes: {},
      provenance: {},
      created_at: daysAgo(1000),
    },
  });

  const result = await applyRetention(
    { prisma: db.prisma, config: config({ events_days: 30, messages_days: 90, digests_days: 14 }) },
    NOW,
  );
  expect(result).toEqual({ events: 5, messages: 2, digests: 1, webhooks: 0 });

  const ids = async <T extends { id: string }>(rows: Promise<T[]>) => (await rows).map((r) => r.id).sort();
  expect(await ids(db.prisma.event.findMany({ select: { id: true } }))).toEqual(
    [pendingOld.id, keyHeld.id, recent.id].sort(),
  );
  expect(oldEvents).toHaveLength(5);
  expect(await ids(db.prisma.message.findMany({ select: { id: true } }))).toEqual(
    [oldQueued.id, newSent.id].sort(),
  );
  expect(
    await db.prisma.deliveryAttempt.count({ where: { message_id: { in: [oldSent.id, oldFailed.id] } } }),
  ).toBe(0);
  expect(await ids(db.prisma.digest.findMany({ select: { id: true } }))).toEqual([openDigest.id]);
  expect(oldDigest.id).toBeDefined();
  expect(await db.prisma.consentEntry.count()).toBe(1);

  // A second run finds nothing more.
  expect(
    await applyRetention(
      { prisma: db.prisma, config: config({ events_days: 30, messages_days: 90, digests_days: 14 }) },
      NOW,
    ),
  ).toEqual({ events: 0, messages: 0, digests: 0, webhooks: 0 });
});

test("deletes finished webhook deliveries past webhooks_days in batches; keeps pending and newer ones", async () => {
  const endpoint = await insertWebhookEndpoint(db.prisma, {
    id: newId("webhook"),
    url: "https://hooks.example.com/svc",
    events: ["*"],
    description: null,
    enabled: true,
    secretSalt: "salt_retention",
    now: daysAgo(100),
  });
  const delivery = async (status: "pending" | "succeeded" | "failed", created: Date) => {
    const id = newId("webhookDelivery");
    await insertWebhookDeliveries(db.prisma, [
      {
        id,
        endpointId: endpoint.id,
        eventId: `whe_retention_${id}`,
        type: "message.sent",
        body: JSON.stringify({
          id: `whe_retention_${id}`,
          type: "message.sent",
          created_at: created.toISOString(),
          data: {},
        }),
        recipientId: null,
        now: created,
      },
    ]);
    if (status !== "pending")
      await db.prisma.webhookDelivery.update({
        where: { id },
        data: { status, next_attempt_at: null, delivered_at: status === "succeeded" ? created : null },
      });
    return id;
  };
  const oldFinished = await Promise.all([
    ...[1, 2, 3].map(() => delivery("succeeded", daysAgo(31))),
    ...[1, 2].map(() => delivery("failed", daysAgo(40))),
  ]);
  const oldPending = await delivery("pending", daysAgo(60));
  const recentSucceeded = await delivery("succeeded", daysAgo(29));
  const recentFailed = await delivery("failed", daysAgo(1));
  const remaining = async () =>
    (await db.prisma.webhookDelivery.findMany({ select: { id: true } })).map((r) => r.id).sort();

  // `null` keeps them all.
  expect(await applyRetention({ prisma: db.prisma, config: config({ webhooks_days: null }) }, NOW)).toEqual({
    events: 0,
    messages: 0,
    digests: 0,
    webhooks: 0,
  });
  expect(await remaining()).toHaveLength(8);

  // Batches of 2, at most 2 per run: the first run stops at 4, the next finishes.
  const limited = config({ webhooks_days: 30, max_batches: 2 });
  expect((await applyRetention({ prisma: db.prisma, config: limited }, NOW)).webhooks).toBe(4);
  expect(await remaining()).toHaveLength(4);
  expect((await applyRetention({ prisma: db.prisma, config: limited }, NOW)).webhooks).toBe(1);
  expect(await remaining()).toEqual([oldPending, recentSucceeded, recentFailed].sort());
  expect(oldFinished).toHaveLength(5);

  // The default (30 days) is what the sweep uses when nothing is set.
  expect((await applyRetention({ prisma: db.prisma, config: parseConfig({}, {}) }, NOW)).webhooks).toBe(0);
  const defaultCutoff = await delivery("succeeded", new Date(NOW.getTime() - 30 * DAY - 1000));
  expect((await applyRetention({ prisma: db.prisma, config: parseConfig({}, {}) }, NOW)).webhooks).toBe(1);
  expect(await remaining()).not.toContain(defaultCutoff);
});
