import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { $transaction } from "../../../transaction";
import {
  claimCallbackDelivery,
  findCallbackDelivery,
  findCallbackPage,
  findDueCallbacks,
  insertCallbackDelivery,
  markCallbackDelivered,
  recordCallbackFailure,
  reopenFailedCallback,
} from "..";

// The callback statements against the real schema: the claim is a lease on `next_attempt_at`, and
// every outcome is a compare-and-set on that claim, so a try that lost its row changes nothing.

const NOW = new Date("2026-03-01T12:00:00.000Z");
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

let db: TestDatabase;
let serial = 0;

beforeAll(async () => {
  db = await createTestDatabase("store_callbacks");
});
afterAll(() => db.drop());

async function newCallback(now = NOW): Promise<string> {
  const id = `cbk_${String(++serial).padStart(4, "0")}`;
  const recorded = await $transaction(db.prisma, (tx) =>
    insertCallbackDelivery(tx, {
      id,
      kind: "approval.decided",
      subjectId: `apr_${serial}`,
      body: { id: `apr_${serial}` },
      now,
    }),
  );
  expect(recorded).toBe(true);
  return id;
}

const row = (id: string) => findCallbackDelivery(db.prisma, id);

describe("claimCallbackDelivery", () => {
  it("claims a due pending row once, by moving next_attempt_at to the lease", async () => {
    const id = await newCallback();
    const claimed = await claimCallbackDelivery(db.prisma, id, at(1), at(31));
    expect(claimed).toMatchObject({ id, status: "pending", attempts: 0, next_attempt_at: at(31) });
    // Leased: a second job finds nothing due until the lease ran out.
    expect(await claimCallbackDelivery(db.prisma, id, at(2), at(32))).toBeNull();
    expect(await claimCallbackDelivery(db.prisma, id, at(31), at(61))).toMatchObject({
      next_attempt_at: at(61),
    });
  });

  it("does not claim a row that is not yet due, or not pending", async () => {
    const id = await newCallback(at(100));
    expect(await claimCallbackDelivery(db.prisma, id, at(99), at(129))).toBeNull();
    const delivered = await newCallback();
    const claim = (await claimCallbackDelivery(db.prisma, delivered, NOW, at(30)))!;
    await markCallbackDelivered(
      db.prisma,
      { id: delivered, attempts: 0, leaseUntil: claim.next_attempt_at! },
      NOW,
    );
    expect(await claimCallbackDelivery(db.prisma, delivered, at(3600), at(3630))).toBeNull();
  });
});

describe("outcomes", () => {
  it("a failure counts the attempt, keeps its error and schedules the next try", async () => {
    const id = await newCallback();
    await claimCallbackDelivery(db.prisma, id, NOW, at(30));
    const claim = { id, attempts: 0, leaseUntil: at(30) };
    expect(await recordCallbackFailure(db.prisma, claim, "callback 500", at(150))).toBe(true);
    expect(await row(id)).toMatchObject({
      status: "pending",
      attempts: 1,
      last_error: "callback 500",
      next_attempt_at: at(150),
      delivered_at: null,
    });
    // The same claim again (a duplicate job's late write) changes nothing.
    expect(await recordCallbackFailure(db.prisma, claim, "callback 502", at(300))).toBe(false);
    expect(await markCallbackDelivered(db.prisma, claim, at(5))).toBe(false);
    expect(await row(id)).toMatchObject({ attempts: 1, last_error: "callback 500" });
  });

  it("a failure without a next try ends `failed`", async () => {
    const id = await newCallback();
    await claimCallbackDelivery(db.prisma, id, NOW, at(30));
    expect(
      await recordCallbackFailure(db.prisma, { id, attempts: 0, leaseUntil: at(30) }, "callback 400", null),
    ).toBe(true);
    expect(await row(id)).toMatchObject({ status: "failed", attempts: 1, next_attempt_at: null });
  });

  it("delivered: attempts counted, delivered_at set; a lost claim (lease taken over) writes nothing", async () => {
    const id = await newCallback();
    await claimCallbackDelivery(db.prisma, id, NOW, at(30));
    // The lease ran out and another try claimed the row.
    await claimCallbackDelivery(db.prisma, id, at(31), at(61));
    expect(await markCallbackDelivered(db.prisma, { id, attempts: 0, leaseUntil: at(30) }, at(10))).toBe(
      false,
    );
    expect(await markCallbackDelivered(db.prisma, { id, attempts: 0, leaseUntil: at(61) }, at(40))).toBe(
      true,
    );
    expect(await row(id)).toMatchObject({
      status: "delivered",
      attempts: 1,
      delivered_at: at(40),
      next_attempt_at: null,
    });
  });
});

describe("reopenFailedCallback", () => {
  it("only a failed row goes back to pending, attempts reset, due now", async () => {
    const id = await newCallback();
    await claimCallbackDelivery(db.prisma, id, NOW, at(30));
    await recordCallbackFailure(db.prisma, { id, attempts: 0, leaseUntil: at(30) }, "callback 500", null);
    expect(await reopenFailedCallback(db.prisma, id, at(60))).toMatchObject({
      status: "pending",
      attempts: 0,
      next_attempt_at: at(60),
      last_error: "callback 500",
    });
    expect(await reopenFailedCallback(db.prisma, id, at(61))).toBeNull();
    expect(await reopenFailedCallback(db.prisma, "cbk_unknown", at(61))).toBeNull();
  });
});

describe("listing", () => {
  beforeAll(async () => {
    await db.prisma.callbackDelivery.deleteMany();
  });

  it("findDueCallbacks: pending rows due before the instant, longest due first", async () => {
    const late = await newCallback(at(-600));
    const later = await newCallback(at(-60));
    await newCallback(at(60)); // not due
    const done = await newCallback(at(-900));
    await claimCallbackDelivery(db.prisma, done, NOW, at(30));
    await markCallbackDelivered(db.prisma, { id: done, attempts: 0, leaseUntil: at(30) }, NOW);
    expect((await findDueCallbacks(db.prisma, NOW, 10)).map((r) => r.id)).toEqual([late, later]);
    expect((await findDueCallbacks(db.prisma, NOW, 1)).map((r) => r.id)).toEqual([late]);
  });

  it("findCallbackPage: newest first, by status, limit + 1 rows", async () => {
    const all = await db.prisma.callbackDelivery.findMany({ orderBy: { created_at: "desc" } });
    const page = await findCallbackPage(db.prisma, {}, { limit: 2, after: null });
    expect(page.map((r) => r.id)).toEqual(all.slice(0, 3).map((r) => r.id));
    const delivered = await findCallbackPage(db.prisma, { status: "delivered" }, { limit: 10, after: null });
    expect(delivered.map((r) => r.status)).toEqual(["delivered"]);
    const after = { createdAt: all[0]!.created_at, id: all[0]!.id };
    const next = await findCallbackPage(db.prisma, {}, { limit: 10, after });
    expect(next.map((r) => r.id)).toEqual(all.slice(1).map((r) => r.id));
  });
});
