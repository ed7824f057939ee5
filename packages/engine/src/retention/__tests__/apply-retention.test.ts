import { parseConfig } from "@svc/config";
import { newId } from "@svc/core";
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

test("off by default: no sweep is scheduled", () => {
  expect(retentionSweeps({ prisma: db.prisma, config: parseConfig({}, {}) })).toEqual([]);
  const on = retentionSweeps({ prisma: db.prisma, config: config({ events_days: 30 }) });
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
  expect(result).toEqual({ events: 5, messages: 2, digests: 1 });

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
  ).toEqual({ events: 0, messages: 0, digests: 0 });
});
