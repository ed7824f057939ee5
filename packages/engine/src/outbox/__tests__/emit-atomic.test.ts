import { newId } from "@svc/core";
import { $transaction, finishSendingMessage, Prisma } from "@svc/store";
import { createTestDatabase, webhookEventsIn, type TestDatabase } from "@svc/testkit";
import { changePreferences } from "../../recipients/preferences";
import { emitWebhookEvents, messageEmission, webhookEntries } from "../emit";

// A webhook event exists exactly when its change committed (docs/outbox.md): a transaction that
// rolls back leaves neither, a compare-and-set that loses writes no event, and one call writes
// every event it is given.

let db: TestDatabase;
const NOW = new Date("2026-12-09T10:00:00.000Z");

beforeAll(async () => {
  db = await createTestDatabase("webhook_emit_atomic");
});
afterAll(() => db.drop());
beforeEach(() => db.prisma.$executeRaw`DELETE FROM outbox`);

const person = () =>
  db.prisma.recipient.create({
    data: { id: newId("recipient"), external_id: `p-${Math.random().toString(36).slice(2)}` },
  });

class Crash extends Error {}

it("a preference change rolled back after its write leaves no ledger entry and no event", async () => {
  const p = await person();
  await expect(
    $transaction(db.prisma, async (tx) => {
      const result = await changePreferences(
        tx,
        p.id,
        { muted_channels: ["sms"] },
        { source: "api", provenance: {} },
        NOW,
      );
      expect(result.changed).toBe(true);
      expect(await webhookEventsIn(tx as unknown as typeof db.prisma)).toHaveLength(1); // visible inside
      throw new Crash();
    }),
  ).rejects.toBeInstanceOf(Crash);
  expect(await webhookEventsIn(db.prisma)).toEqual([]);
  expect(await db.prisma.consentEntry.count({ where: { recipient_id: p.id } })).toBe(0);
});

it("a final write that lost its lease writes no event; the winner's writes one", async () => {
  const p = await person();
  const message = await db.prisma.message.create({
    data: {
      id: newId("message"),
      recipient_id: p.id,
      recipient_external_id: p.external_id,
      sender: "backend",
      category: "news",
      template: "tpl",
      importance: "normal",
      claimed_importance: "normal",
      channels: ["email"],
      content: Prisma.DbNull,
      send_at: NOW,
      link_nonce: "n",
      status: "sending",
      generation: 2,
    },
  });
  const entries = (generation: number) =>
    webhookEntries([
      messageEmission(
        "message.failed",
        { id: message.id, status: "failed", status_reason: `gen ${generation}` },
        NOW,
      ),
    ]);
  expect(
    await finishSendingMessage(db.prisma, { id: message.id, generation: 1 }, "failed", "x", NOW, entries(1)),
  ).toBe(false);
  expect(await webhookEventsIn(db.prisma)).toEqual([]);
  expect(
    await finishSendingMessage(db.prisma, { id: message.id, generation: 2 }, "failed", "x", NOW, entries(2)),
  ).toBe(true);
  expect((await webhookEventsIn(db.prisma)).map((e) => e.snapshot?.status_reason)).toEqual(["gen 2"]);
});

it("one call writes all its events in order; none given, nothing written", async () => {
  const events = ["a", "b", "c"].map((id) =>
    messageEmission("message.queued", { id, status: "queued", status_reason: null }, NOW),
  );
  await $transaction(db.prisma, (tx) => emitWebhookEvents(tx, events));
  expect((await webhookEventsIn(db.prisma)).map((e) => e.subject.id)).toEqual(["a", "b", "c"]);
  await $transaction(db.prisma, (tx) => emitWebhookEvents(tx, []));
  expect(await webhookEventsIn(db.prisma)).toHaveLength(3);
});
