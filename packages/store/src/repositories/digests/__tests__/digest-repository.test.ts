import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { $transaction } from "../../../transaction";
import { insertRecipient } from "../../recipients";
import {
  cancelOpenDigest,
  cancelOpenDigestsOfRule,
  closeDigestWindowNow,
  detachOpenDigest,
  dropDigestItemsBeyond,
  findDigest,
  findDigestWithItems,
  findOpenDigest,
  findOpenDigestsDueBefore,
  insertDigestItemInEventOrder,
  markDigestSent,
  openDigest,
} from "..";

// The digest repository against the real schema: item order, trimming, and the compare-and-sets
// on `open` that make closing happen once.

const NOW = new Date("2024-01-15T12:00:00.000Z");
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

let db: TestDatabase;
let serial = 0;

beforeAll(async () => {
  db = await createTestDatabase("store_digests");
  await $transaction(db.prisma, (tx) =>
    insertRecipient(tx, { id: "rcp_ann", external_id: "ann", profile: {}, now: NOW }),
  );
});
afterAll(() => db.drop());

async function newDigest(options: { rule?: string; closesAt?: Date } = {}) {
  const id = `dig_${++serial}`;
  const rule = options.rule ?? "r1";
  return $transaction(db.prisma, (tx) =>
    openDigest(tx, {
      id,
      rule_key: rule,
      recipient_id: "rcp_ann",
      recipient_external_id: "ann",
      key: id,
      open_key: `${rule}|rcp_ann|${id}`,
      closes_at: options.closesAt ?? at(60),
      now: NOW,
    }),
  );
}

const addItem = (digestId: string, eventId: string, second: number) =>
  $transaction(db.prisma, (tx) =>
    insertDigestItemInEventOrder(tx, digestId, { id: eventId, created_at: at(second), data: { e: eventId } }),
  );

async function itemsOf(digestId: string) {
  const digest = await findDigestWithItems(db.prisma, digestId);
  return [...digest!.items].sort((a, b) => a.position - b.position).map((i) => [i.position, i.event_id]);
}

test("an open digest is found by its open key, empty, with the given window", async () => {
  const digest = await newDigest({ closesAt: at(300) });
  expect(digest).toMatchObject({ status: "open", count: 0, closes_at: at(300), created_at: NOW });
  expect((await findOpenDigest(db.prisma, digest.open_key!))?.id).toBe(digest.id);
});

test("items take positions in event order (time, then id), whatever order they arrive in", async () => {
  const { id } = await newDigest();
  await addItem(id, "evt_c", 3);
  await addItem(id, "evt_a", 1);
  await addItem(id, "evt_b2", 2);
  await addItem(id, "evt_b1", 2); // same time as evt_b2, smaller id: before it
  await addItem(id, "evt_d", 4); // the usual case: appended
  await addItem(id, "evt_0", 0);
  expect(await itemsOf(id)).toEqual([
    [0, "evt_0"],
    [1, "evt_a"],
    [2, "evt_b1"],
    [3, "evt_b2"],
    [4, "evt_c"],
    [5, "evt_d"],
  ]);
});

test("dropping beyond max_items keeps the most recent positions", async () => {
  const { id } = await newDigest();
  for (const [i, event] of ["evt_1", "evt_2", "evt_3", "evt_4"].entries()) await addItem(id, event, i);
  await $transaction(db.prisma, (tx) => dropDigestItemsBeyond(tx, id, 2));
  expect(await itemsOf(id)).toEqual([
    [2, "evt_3"],
    [3, "evt_4"],
  ]);
  await $transaction(db.prisma, (tx) => dropDigestItemsBeyond(tx, id, 2)); // nothing beyond: no-op
  expect(await itemsOf(id)).toHaveLength(2);
});

test("sending wins once; a sent digest cannot be cancelled or detached", async () => {
  const { id } = await newDigest();
  expect(await $transaction(db.prisma, (tx) => markDigestSent(tx, id, at(5)))).toBe(true);
  expect(await $transaction(db.prisma, (tx) => markDigestSent(tx, id, at(6)))).toBe(false);
  expect(await cancelOpenDigest(db.prisma, id, "rule disabled", at(7))).toBe(false);
  expect(await $transaction(db.prisma, (tx) => detachOpenDigest(tx, id, at(8)))).toBe(false);
  expect(await findDigest(db.prisma, id)).toMatchObject({
    status: "sent",
    open_key: null,
    sent_at: at(5),
    status_reason: null,
  });
});

test("racing closers: exactly one marks the digest sent", async () => {
  const { id } = await newDigest();
  const wins = await Promise.all(
    Array.from({ length: 6 }, (_, i) => $transaction(db.prisma, (tx) => markDigestSent(tx, id, at(i)))),
  );
  expect(wins.filter(Boolean)).toHaveLength(1);
});

test("detaching keeps the digest open but out of its group", async () => {
  const digest = await newDigest();
  expect(await $transaction(db.prisma, (tx) => detachOpenDigest(tx, digest.id, at(1)))).toBe(true);
  expect(await findOpenDigest(db.prisma, digest.open_key!)).toBeNull();
  expect(await findDigest(db.prisma, digest.id)).toMatchObject({ status: "open", open_key: null });
  expect(await cancelOpenDigest(db.prisma, digest.id, "rule deleted", at(2))).toBe(true);
  expect(await findDigest(db.prisma, digest.id)).toMatchObject({
    status: "cancelled",
    status_reason: "rule deleted",
  });
});

test("send now moves closes_at only for an open digest not yet due", async () => {
  const later = await newDigest({ closesAt: at(600) });
  const due = await newDigest({ closesAt: at(-1) });
  expect(await closeDigestWindowNow(db.prisma, later.id, NOW)).toBe(true);
  expect(await closeDigestWindowNow(db.prisma, due.id, NOW)).toBe(false);
  expect((await findDigest(db.prisma, later.id))?.closes_at).toEqual(NOW);
  expect((await findDigest(db.prisma, due.id))?.closes_at).toEqual(at(-1));
});

test("a rule's open digests are cancelled together; other rules' and closed ones stay", async () => {
  const [a, b, other] = [
    await newDigest({ rule: "gone" }),
    await newDigest({ rule: "gone" }),
    await newDigest(),
  ];
  await $transaction(db.prisma, (tx) => markDigestSent(tx, b.id, NOW));
  expect(await cancelOpenDigestsOfRule(db.prisma, "gone", "rule deleted", NOW)).toBe(1);
  expect((await findDigest(db.prisma, a.id))?.status).toBe("cancelled");
  expect((await findDigest(db.prisma, b.id))?.status).toBe("sent");
  expect((await findDigest(db.prisma, other.id))?.status).toBe("open");
});

test("due digests: open ones past the time, longest due first, up to the limit", async () => {
  await db.prisma.digest.updateMany({
    where: { status: "open" },
    data: { status: "cancelled", open_key: null },
  });
  const late = await newDigest({ closesAt: at(-30) });
  const later = await newDigest({ closesAt: at(-60) });
  await newDigest({ closesAt: at(30) }); // not due
  const sent = await newDigest({ closesAt: at(-90) });
  await $transaction(db.prisma, (tx) => markDigestSent(tx, sent.id, NOW));
  expect(await findOpenDigestsDueBefore(db.prisma, NOW, 10)).toEqual([later.id, late.id]);
  expect(await findOpenDigestsDueBefore(db.prisma, NOW, 1)).toEqual([later.id]);
});
