import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { findEventsByIdempotencyKeys, insertAcceptedEventBatch, type NewEvent } from "..";

// The batch request's INSERT against the real schema: shared columns as parameters, nulls left
// out of the rows' JSON, taken keys skipped, and rows that do not share what they must refused.

const NOW = new Date("2024-01-15T12:00:00.000Z");
const LATER = new Date("2024-01-22T12:00:00.000Z");

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("store_event_batch");
});
afterAll(() => db.drop());

const row = (id: string, key: string | null, extra: Partial<NewEvent> = {}): NewEvent => ({
  id,
  name: "batch.event",
  sender: "backend",
  agent_key: null,
  api_key_id: "key_1",
  idempotency_key: key,
  request_hash: key === null ? null : `hash-${key}`,
  idempotency_expires_at: key === null ? null : LATER,
  recipient_external_id: "ann",
  recipient_profile: null,
  data: { n: id },
  created_at: NOW,
  ...extra,
});

test("stores the rows with the shared columns, skips taken keys and reads originals by key", async () => {
  const first = await insertAcceptedEventBatch(db.prisma, [
    row("evt_1", "k1"),
    row("evt_2", null, { recipient_profile: { locale: "de" } }),
  ]);
  expect([...first].sort()).toEqual(["evt_1", "evt_2"]);
  const second = await insertAcceptedEventBatch(db.prisma, [row("evt_3", "k1"), row("evt_4", "k2")]);
  expect([...second]).toEqual(["evt_4"]);

  const stored = await db.prisma.event.findMany({ orderBy: { id: "asc" } });
  expect(stored.map((e) => [e.id, e.idempotency_key, e.idempotency_expires_at, e.request_hash])).toEqual([
    ["evt_1", "k1", LATER, "hash-k1"],
    ["evt_2", null, null, null],
    ["evt_4", "k2", LATER, "hash-k2"],
  ]);
  expect(stored[1]).toMatchObject({
    sender: "backend",
    api_key_id: "key_1",
    agent_key: null,
    source: "api",
    status: "pending",
    created_at: NOW,
    recipient_profile: { locale: "de" },
    data: { n: "evt_2" },
  });
  expect(stored[0]!.recipient_profile).toBeNull(); // SQL NULL, not JSON null

  const originals = await findEventsByIdempotencyKeys(db.prisma, "backend", ["k1", "k2", "k3"]);
  expect(originals.map((e) => e.id).sort()).toEqual(["evt_1", "evt_4"]);
  expect(await findEventsByIdempotencyKeys(db.prisma, "another", ["k1"])).toEqual([]);
});

test("refuses rows that do not share sender, key, agent and times", async () => {
  await expect(
    insertAcceptedEventBatch(db.prisma, [row("evt_9", null), row("evt_10", null, { sender: "agent:x" })]),
  ).rejects.toThrow("insertAcceptedEventBatch: the rows must share sender, key, agent and times");
  expect(await db.prisma.event.count({ where: { id: { in: ["evt_9", "evt_10"] } } })).toBe(0);
});
