import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { $transaction } from "../../../transaction";
import { insertOutboxEntries, outboxBacklog, takeOutboxEntries } from "..";

// The outbox's statements against the real schema: entries exist only if their transaction
// committed, a take deletes what it returns (undone by a rollback), and two relays taking at once
// never get the same entry.

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("store_outbox");
});
afterAll(() => db.drop());
beforeEach(() => db.prisma.$executeRaw`DELETE FROM outbox`);

const write = (n: number, topic = "message.sent") =>
  $transaction(db.prisma, (tx) =>
    insertOutboxEntries(
      tx,
      Array.from({ length: n }, (_, i) => ({
        topic,
        payload: { n: i },
        notify: i % 2 === 0 ? `chan:${i}` : null,
      })),
    ),
  );

class Rollback extends Error {}

it("writes nothing when the writer's transaction rolls back", async () => {
  await expect(
    $transaction(db.prisma, async (tx) => {
      await insertOutboxEntries(tx, [{ topic: "message.sent", payload: { n: 1 } }]);
      throw new Rollback();
    }),
  ).rejects.toBeInstanceOf(Rollback);
  expect(await outboxBacklog(db.prisma)).toEqual({ count: 0, oldest: null });
});

it("takes the oldest entries in id order, with their fields, and deletes them", async () => {
  await write(3);
  const taken = await $transaction(db.prisma, (tx) => takeOutboxEntries(tx, 2));
  expect(taken.map((e) => [e.topic, e.payload, e.notify])).toEqual([
    ["message.sent", { n: 0 }, "chan:0"],
    ["message.sent", { n: 1 }, null],
  ]);
  expect(BigInt(taken[0]!.id) < BigInt(taken[1]!.id)).toBe(true);
  expect(taken[0]!.created_at).toBeInstanceOf(Date);
  expect((await outboxBacklog(db.prisma)).count).toBe(1);
});

it("puts entries back when the relay's transaction rolls back", async () => {
  await write(2);
  await expect(
    $transaction(db.prisma, async (tx) => {
      expect(await takeOutboxEntries(tx, 10)).toHaveLength(2);
      throw new Rollback();
    }),
  ).rejects.toBeInstanceOf(Rollback);
  expect((await outboxBacklog(db.prisma)).count).toBe(2);
});

it("two relays taking at once share the entries without overlap", async () => {
  await write(40);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // The first relay holds its batch (locked, not yet deleted for others) while the second takes.
  const first = $transaction(db.prisma, async (tx) => {
    const taken = await takeOutboxEntries(tx, 25);
    await held;
    return taken;
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const second = await $transaction(db.prisma, (tx) => takeOutboxEntries(tx, 25));
  release();
  const a = (await first).map((e) => e.id);
  const b = second.map((e) => e.id);
  expect(a).toHaveLength(25);
  expect(b).toHaveLength(15);
  expect(a.filter((id) => b.includes(id))).toEqual([]);
  expect((await outboxBacklog(db.prisma)).count).toBe(0);
});
