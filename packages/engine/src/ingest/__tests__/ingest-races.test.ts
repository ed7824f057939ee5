import type { TestDatabase } from "@svc/testkit";
import type { AcceptEventDeps } from "../../events/accept-event";
import { ingestEvent } from "../ingest-event";
import type { IngestDeps } from "../ingest-types";
import {
  digestPolicy,
  makeRecipient,
  makeRule,
  makeTemplate,
  NOW,
  outcomesOf,
  postEvent,
  startIngestEnv,
  type IngestTestEnv,
} from "./ingest-fixtures";

// Races: one person's decisions run one after the other (docs/policy.md), one open digest per group
// in event order (docs/digests.md, "The digest policy"),
// run with concurrent ingests on a real database.

let db: TestDatabase;
let deps: IngestDeps;
let accept: AcceptEventDeps;
let env: IngestTestEnv;

beforeAll(async () => {
  env = await startIngestEnv("ingest_races", { poolMax: 25 });
  ({ db, deps, accept } = env);
  await makeTemplate(db.prisma, "tpl");
});

afterAll(() => env.close());

const post = (name: string, recipient: string, data: Record<string, unknown> = {}) =>
  postEvent(accept, { name, recipient, data });
const shuffled = <T>(items: T[]) => [...items].sort(() => Math.random() - 0.5);

it("20 concurrent events for one person against the marketing cap of 2 per day: exactly 2 queued", async () => {
  await makeRecipient(db.prisma, "cap");
  await makeRule(db.prisma, { key: "promo", event: "promo.sent", category: "marketing" });
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) ids.push(await post("promo.sent", "cap", { i }));

  const results = await Promise.all(ids.map((id) => ingestEvent(deps, id)));
  expect(results.map((r) => r.status)).toEqual(Array(20).fill("processed"));

  const messages = await db.prisma.message.findMany({ where: { recipient_external_id: "cap" } });
  const byStatus = messages.reduce<Record<string, number>>(
    (acc, m) => ({
      ...acc,
      [`${m.status} ${m.status_reason}`]: (acc[`${m.status} ${m.status_reason}`] ?? 0) + 1,
    }),
    {},
  );
  expect(byStatus).toEqual({ "queued null": 2, "suppressed frequency_cap: 2 per P1D": 18 });
  const outcomes = (await Promise.all(ids.map((id) => outcomesOf(db.prisma, id)))).flat();
  expect(outcomes.filter((o) => o.status === "queued")).toHaveLength(2);
  expect(
    outcomes.filter((o) => o.reason === "frequency_cap: 2 per P1D" && o.status === "suppressed"),
  ).toHaveLength(18);
});

describe("digest rules", () => {
  beforeAll(() => makeRecipient(db.prisma, "dig"));

  it("5 concurrent events open one digest with count 5 and items in event order", async () => {
    await makeRule(db.prisma, {
      key: "comments",
      event: "comment.added",
      digest: digestPolicy({ key: "{{ data.thread }}" }),
    });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await post("comment.added", "dig", { thread: "t1", n: i }));

    await Promise.all(shuffled(ids).map((id) => ingestEvent(deps, id)));

    const digests = await db.prisma.digest.findMany({
      where: { rule_key: "comments" },
      include: { items: { orderBy: { position: "asc" } } },
    });
    expect(digests).toHaveLength(1);
    const [digest] = digests;
    expect(digest).toMatchObject({
      status: "open",
      count: 5,
      key: "t1",
      open_key: "comments|rcp_dig|t1",
      recipient_external_id: "dig",
    });
    expect(digest!.items.map((item) => item.event_id)).toEqual(ids);
    expect(digest!.items.map((item) => (item.data as { n: number }).n)).toEqual([0, 1, 2, 3, 4]);
    // closes_at = the first event's processing time + the 1 h window
    expect(digest!.closes_at.getTime() - digest!.created_at.getTime()).toBe(3600_000);
    for (const id of ids) {
      expect(await outcomesOf(db.prisma, id)).toEqual([
        { rule: "comments", matched: true, reason: "digested", status: null, message: false, digest: true },
      ]);
    }
    expect(await db.prisma.message.count({ where: { rule: "comments" } })).toBe(0);
  });

  it("different keys form separate digests; a closed digest is not joined", async () => {
    await makeRule(db.prisma, {
      key: "by-key",
      event: "by.key",
      digest: digestPolicy({ key: "{{ data.k }}" }),
    });
    const a = await post("by.key", "dig", { k: "a" });
    const b = await post("by.key", "dig", { k: "b" });
    await ingestEvent(deps, a);
    await ingestEvent(deps, b);
    await db.prisma.digest.updateMany({
      where: { rule_key: "by-key", key: "a" },
      data: { status: "sent", open_key: null },
    });
    await ingestEvent(deps, await post("by.key", "dig", { k: "a" }));
    const rows = await db.prisma.digest.findMany({
      where: { rule_key: "by-key" },
      orderBy: { created_at: "asc" },
    });
    expect(rows.map((d) => [d.key, d.status, d.count])).toEqual([
      ["a", "sent", 1],
      ["b", "open", 1],
      ["a", "open", 1],
    ]);
  });

  it("keeps the newest max_items, still counting every event; send_after closes now", async () => {
    await makeRule(db.prisma, {
      key: "capped",
      event: "capped.digest",
      digest: digestPolicy({ max_items: 3, send_after: 5 }),
    });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await post("capped.digest", "dig", { n: i }));
    // The oldest arrives last: counted, then dropped as beyond max_items.
    for (const id of [...ids.slice(1), ids[0]!].slice(0, 4)) await ingestEvent(deps, id);
    let digest = await db.prisma.digest.findFirstOrThrow({
      where: { rule_key: "capped" },
      include: { items: { orderBy: { position: "asc" } } },
    });
    expect([digest.count, digest.items.map((i) => i.event_id)]).toEqual([4, ids.slice(2, 5)]);
    const windowEnd = digest.closes_at;

    const result = await ingestEvent(deps, ids[0]!);
    digest = await db.prisma.digest.findFirstOrThrow({
      where: { rule_key: "capped" },
      include: { items: { orderBy: { position: "asc" } } },
    });
    expect([digest.count, digest.items.map((i) => i.event_id)]).toEqual([5, ids.slice(2, 5)]);
    expect(digest.closes_at.getTime()).toBeLessThan(windowEnd.getTime());
    expect(result.status === "processed" && result.followUps.digests).toEqual([
      { digestId: digest.id, closesAt: digest.closes_at, full: true },
    ]);
  });

  it("deliver_at closes at the next local time of day in the person's zone", async () => {
    await db.prisma.recipient.create({
      data: { id: "rcp_tokyo", external_id: "tokyo", timezone: "Asia/Tokyo" },
    });
    await makeRule(db.prisma, {
      key: "daily",
      event: "daily.digest",
      digest: digestPolicy({ window: null, deliver_at: "09:00" }),
    });
    await ingestEvent(deps, await post("daily.digest", "tokyo"));
    const digest = await db.prisma.digest.findFirstOrThrow({ where: { rule_key: "daily" } });
    // NOW is 21:00 in Tokyo on Monday: the next 09:00 there is Tuesday 00:00 UTC.
    expect(NOW.toISOString()).toBe("2024-01-15T12:00:00.000Z");
    expect(digest.closes_at.toISOString()).toBe("2024-01-16T00:00:00.000Z");
  });
});
