import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { agentRows, categoryRows, ruleRows, softDeleteAgent } from "..";

// Keyed admin rows against the real schema: JSON nulls, upserts, soft deletes.

const NOW = new Date("2024-01-15T12:00:00.000Z");

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("store_config_resources");
});
afterAll(() => db.drop());

test("a null JSON field is stored as SQL NULL and an absent one keeps its value", async () => {
  await categoryRows.insert(db.prisma, "news", { fatigue: { after: 3, pause: 86400 } }, NOW);
  await categoryRows.change(db.prisma, "news", { description: "Weekly news" }, NOW);
  expect(await categoryRows.find(db.prisma, "news")).toMatchObject({
    description: "Weekly news",
    fatigue: { after: 3, pause: 86400 },
    frequency_caps: [],
  });
  await categoryRows.change(db.prisma, "news", { fatigue: null }, NOW);
  const [row] = await db.prisma.$queryRaw<{ is_null: boolean }[]>`
    SELECT fatigue IS NULL AS is_null FROM categories WHERE key = 'news'`;
  expect(row?.is_null).toBe(true);
});

test("save inserts, then replaces the given fields and keeps created_at", async () => {
  const fields = { event: "order.*", template: "t", category: "news", channels: ["email"] };
  const created = await ruleRows.save(db.prisma, "ship", { ...fields, condition: { "==": [1, 1] } }, NOW);
  const later = new Date(NOW.getTime() + 60_000);
  const replaced = await ruleRows.save(db.prisma, "ship", { ...fields, condition: null, priority: 5 }, later);
  expect(replaced).toMatchObject({ created_at: created.created_at, condition: null, priority: 5 });
  await ruleRows.purge(db.prisma, "ship");
  expect(await ruleRows.find(db.prisma, "ship")).toBeNull();
});

test("a deleted agent leaves lists but stays findable; deleting twice changes nothing", async () => {
  await agentRows.insert(db.prisma, "bot", { name: "Bot", categories: null, approval: true }, NOW);
  await agentRows.insert(db.prisma, "helper", { name: "Helper" }, NOW);
  expect(await softDeleteAgent(db.prisma, "bot", NOW)).toBe(true);
  expect(await softDeleteAgent(db.prisma, "bot", new Date(NOW.getTime() + 1000))).toBe(false);
  expect((await agentRows.find(db.prisma, "bot"))?.deleted_at).toEqual(NOW);
  const page = await agentRows.findPage(db.prisma, { limit: 10, after: null });
  expect(page.map((a) => a.key)).toEqual(["helper"]);
});

test("every write stamps updated_at with the clock it is given, not the database's", async () => {
  const created = await categoryRows.insert(db.prisma, "clocked", {}, NOW);
  expect([created.created_at, created.updated_at]).toEqual([NOW, NOW]);
  const later = new Date(NOW.getTime() + 3_600_000);
  const changed = await categoryRows.change(db.prisma, "clocked", { description: "x" }, later);
  expect([changed.created_at, changed.updated_at]).toEqual([NOW, later]);
  const latest = new Date(NOW.getTime() + 7_200_000);
  const saved = await categoryRows.save(db.prisma, "clocked", { description: "y" }, latest);
  expect([saved.created_at, saved.updated_at]).toEqual([NOW, latest]);
});
