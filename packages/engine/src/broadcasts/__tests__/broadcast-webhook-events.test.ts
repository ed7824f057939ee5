import { newId } from "@svc/core";
import { completeBroadcastIfDone, Prisma } from "@svc/store";
import { createTestDatabase, webhookEventsIn, type TestDatabase } from "@svc/testkit";
import { expireQueuedSweep } from "../../delivery/delivery-sweeps";
import { broadcastCompletedPerRow } from "../../outbox/emit";
import { cancelBroadcastMessages } from "../cancel-broadcast-messages";

// The bulk status changes write one webhook event per row they change, in the same statement
// (docs/webhooks.md): a cancelled broadcast's queued messages, a completed broadcast, and the
// expire-queued sweep; rows they leave alone get none.

let db: TestDatabase;
const NOW = new Date("2026-12-09T10:00:00.000Z");

beforeAll(async () => {
  db = await createTestDatabase("broadcast_webhook_events");
});
afterAll(() => db.drop());
beforeEach(() => db.prisma.$executeRaw`DELETE FROM outbox`);

async function broadcast(status: "running" | "cancelled", total: number | null = 2) {
  return db.prisma.broadcast.create({
    data: {
      id: newId("broadcast"),
      name: "b",
      template: "tpl",
      category: "news",
      channels: ["email"],
      audience: { recipients: [] },
      status,
      total,
    },
  });
}

async function message(fields: { broadcast_id?: string; status: "queued" | "sent"; expires_at?: Date }) {
  const person = await db.prisma.recipient.create({
    data: { id: newId("recipient"), external_id: `p-${Math.random().toString(36).slice(2)}` },
  });
  return db.prisma.message.create({
    data: {
      id: newId("message"),
      recipient_id: person.id,
      recipient_external_id: person.external_id,
      sender: "backend",
      category: "news",
      template: "tpl",
      importance: "normal",
      claimed_importance: "normal",
      channels: ["email"],
      content: Prisma.DbNull,
      send_at: NOW,
      link_nonce: "n",
      ...fields,
    },
  });
}

it("cancelling a broadcast's messages writes message.cancelled for each queued one only", async () => {
  const b = await broadcast("cancelled");
  const queued = [
    await message({ broadcast_id: b.id, status: "queued" }),
    await message({ broadcast_id: b.id, status: "queued" }),
  ];
  const sent = await message({ broadcast_id: b.id, status: "sent" });
  const other = await message({ status: "queued" });
  expect(await cancelBroadcastMessages({ prisma: db.prisma }, b.id, NOW)).toBe(2);
  const events = await webhookEventsIn(db.prisma);
  expect(events.sort((x, y) => x.subject.id.localeCompare(y.subject.id))).toEqual(
    queued
      .map((m) => m.id)
      .sort()
      .map((id) => ({
        type: "message.cancelled",
        occurred_at: NOW.toISOString(),
        subject: { kind: "message", id },
        snapshot: { status: "cancelled", status_reason: "broadcast cancelled" },
      })),
  );
  expect(events.map((e) => e.subject.id)).not.toContain(sent.id);
  expect(events.map((e) => e.subject.id)).not.toContain(other.id);
  expect(await cancelBroadcastMessages({ prisma: db.prisma }, b.id, NOW)).toBe(0);
  expect(await webhookEventsIn(db.prisma)).toHaveLength(2);
});

it("completing a broadcast writes broadcast.completed once; one with chunks left writes nothing", async () => {
  const done = await broadcast("running");
  const busy = await broadcast("running");
  await db.prisma.broadcastChunk.create({
    data: { broadcast_id: busy.id, position: 0, first_seq: 0, last_seq: 1, next_seq: 0 },
  });
  const entry = broadcastCompletedPerRow(NOW);
  expect(await completeBroadcastIfDone(db.prisma, busy.id, NOW, entry)).toBe(false);
  expect(await completeBroadcastIfDone(db.prisma, done.id, NOW, entry)).toBe(true);
  expect(await completeBroadcastIfDone(db.prisma, done.id, NOW, entry)).toBe(false);
  expect(await webhookEventsIn(db.prisma)).toEqual([
    {
      type: "broadcast.completed",
      occurred_at: NOW.toISOString(),
      subject: { kind: "broadcast", id: done.id },
      snapshot: { status: "completed", completed_at: NOW.toISOString() },
    },
  ]);
});

it("the expire-queued sweep writes message.suppressed for each message it expires", async () => {
  const expired = await message({ status: "queued", expires_at: new Date(NOW.getTime() - 1) });
  await message({ status: "queued", expires_at: new Date(NOW.getTime() + 60_000) });
  const sweep = expireQueuedSweep({ prisma: db.prisma });
  expect(await sweep.run({ sweep: sweep.name, now: NOW })).toEqual({ expired: 1 });
  expect(await webhookEventsIn(db.prisma)).toEqual([
    {
      type: "message.suppressed",
      occurred_at: NOW.toISOString(),
      subject: { kind: "message", id: expired.id },
      snapshot: { status: "suppressed", status_reason: "expired" },
    },
  ]);
});
