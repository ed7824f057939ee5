import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { findSendReferences } from "..";

// The direct sends' one-statement read of what they name gives exactly the rows Prisma's own
// queries give (types, JSON columns, nulls, timestamps to the millisecond), and nothing for a
// key that names nothing.

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("store_send_references");
  await db.prisma.recipient.createMany({
    data: [
      { id: "rcp_1", external_id: "ada" },
      { id: "rcp_2", external_id: "bob" },
      { id: "rcp_3", external_id: "Grüße ✓" },
    ],
  });
  await db.prisma.template.createMany({
    data: [
      {
        key: "welcome",
        default_locale: "de",
        locales: { de: { title: "Hallo {{ x }}", body: 'ü\n"q"', channels: { sms: { body: "x" } } } },
        ai_attributes: ["tone", "länge"],
        created_at: new Date("2024-01-15T12:00:00.123Z"),
        updated_at: new Date("2024-02-01T00:00:00.001Z"),
      },
      { key: "bare", locales: {} },
    ],
  });
  await db.prisma.category.createMany({
    data: [
      {
        key: "news",
        frequency_caps: [{ period: 3600, limit: 2 }],
        fatigue: { after: 3, pause: 86400 },
        marketing: true,
        respect_quiet_hours: false,
      },
      { key: "plain" },
    ],
  });
});
afterAll(() => db.drop());

const byKey = <T extends { key: string }>(rows: T[]) => [...rows].sort((a, b) => a.key.localeCompare(b.key));

test("reads what Prisma's queries read, in one statement", async () => {
  const keys = {
    recipients: ["ada", "Grüße ✓", "nobody"],
    templates: ["welcome", "bare", "missing"],
    categories: ["news", "plain", "nope"],
  };
  const read = await findSendReferences(db.prisma, keys);
  expect([...read.recipientIds].sort()).toEqual([
    ["Grüße ✓", "rcp_3"],
    ["ada", "rcp_1"],
  ]);
  expect(byKey(read.templates)).toStrictEqual(
    byKey(await db.prisma.template.findMany({ where: { key: { in: keys.templates } } })),
  );
  expect(byKey(read.categories)).toStrictEqual(
    byKey(await db.prisma.category.findMany({ where: { key: { in: keys.categories } } })),
  );
  expect(read.templates.find((t) => t.key === "welcome")!.created_at).toEqual(
    new Date("2024-01-15T12:00:00.123Z"),
  );
});

test("names nothing: empty lists", async () => {
  const read = await findSendReferences(db.prisma, { recipients: [], templates: ["x"], categories: [] });
  expect(read).toEqual({ recipientIds: new Map(), templates: [], categories: [] });
});
