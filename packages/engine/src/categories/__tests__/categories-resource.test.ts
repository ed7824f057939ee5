import { AppError } from "@svc/core";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { categoriesResource } from "../categories-resource";

// Categories as an admin resource (docs/policy.md "Categories"; docs/api.md "Admin resources"):
// the two built-ins the migration inserts, defaults, periods in and out, fatigue, the built-ins'
// protection from DELETE, and newest-first lists.

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("engine_categories");
});
afterAll(() => db.drop());

// Before any test database exists, so the built-ins (created when migrating) are always newer.
const T0 = new Date("2021-06-01T08:00:00.000Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const categories = () => categoriesResource({ prisma: db.prisma });
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error: unknown = await promise.then(
    () => new Error("expected a refusal"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

it("the two built-ins exist from the start, as the table in docs/policy.md says", async () => {
  const builtin = {
    builtin: true,
    created_at: expect.stringMatching(ISO),
    updated_at: expect.stringMatching(ISO),
  };
  expect(await categories().get("transactional")).toEqual({
    key: "transactional",
    description: expect.any(String),
    frequency_caps: [],
    respect_quiet_hours: false,
    allow_unsubscribe: false,
    marketing: false,
    fatigue: null,
    ...builtin,
  });
  expect(await categories().get("marketing")).toEqual({
    key: "marketing",
    description: expect.any(String),
    frequency_caps: [
      { period: "P1D", limit: 2 },
      { period: "P7D", limit: 5 },
    ],
    respect_quiet_hours: true,
    allow_unsubscribe: true,
    marketing: true,
    fatigue: null,
    ...builtin,
  });
});

it("creates with the defaults; periods and fatigue are stored in seconds and answered without weeks", async () => {
  expect(await categories().create("plain", {}, T0)).toEqual({
    key: "plain",
    description: "",
    frequency_caps: [],
    respect_quiet_hours: true,
    allow_unsubscribe: true,
    marketing: false,
    fatigue: null,
    builtin: false,
    created_at: T0.toISOString(),
    updated_at: expect.stringMatching(ISO),
  });

  const news = await categories().create(
    "product-news",
    {
      description: "News about features you use",
      frequency_caps: [
        { period: "P1D", limit: 1 },
        { period: 604800, limit: 3 },
      ],
      marketing: true,
      fatigue: { after: 5, pause: "P2W" },
    },
    T0,
  );
  expect(news).toMatchObject({
    frequency_caps: [
      { period: "P1D", limit: 1 },
      { period: "P7D", limit: 3 },
    ],
    marketing: true,
    fatigue: { after: 5, pause: "P14D" },
    builtin: false,
  });
  const row = await db.prisma.category.findUniqueOrThrow({ where: { key: "product-news" } });
  expect(row).toMatchObject({
    frequency_caps: [
      { period: 86400, limit: 1 },
      { period: 604800, limit: 3 },
    ],
    fatigue: { after: 5, pause: 1209600 },
    created_at: T0,
  });
});

it.each([
  ["a month", { frequency_caps: [{ period: "P1M", limit: 1 }] }, ["body", "frequency_caps", 0, "period"]],
  ["a year", { frequency_caps: [{ period: "P1Y", limit: 1 }] }, ["body", "frequency_caps", 0, "period"]],
  ["zero seconds", { frequency_caps: [{ period: 0, limit: 1 }] }, ["body", "frequency_caps", 0, "period"]],
  [
    "a fractional second",
    { frequency_caps: [{ period: 1.5, limit: 1 }] },
    ["body", "frequency_caps", 0, "period"],
  ],
  ["a zero pause", { fatigue: { after: 3, pause: "PT0S" } }, ["body", "fatigue", "pause"]],
  ["past the int4 limit", { fatigue: { after: 3, pause: 2_147_483_648 } }, ["body", "fatigue", "pause"]],
])("422 for %s at the field, nothing stored", async (_label, input, loc) => {
  const error = await refusal(categories().create("refused", input, T0));
  expect({ code: error.code, status: error.status }).toEqual({ code: "validation", status: 422 });
  expect(error.errors?.map((e) => ({ loc: e.loc, type: e.type }))).toEqual([{ loc, type: "value_error" }]);
  expect(await db.prisma.category.findUnique({ where: { key: "refused" } })).toBeNull();
});

it("POST of a taken key is 409; PUT replaces with defaults; PATCH changes only what it is given; 404 for an unknown key", async () => {
  const taken = await refusal(categories().create("transactional", {}, T0));
  expect({ code: taken.code, status: taken.status }).toEqual({ code: "conflict", status: 409 });

  const first = await categories().replace(
    "alerts",
    { description: "Alerts", marketing: true, fatigue: { after: 2, pause: "PT12H" } },
    at(1),
  );
  expect(first).toMatchObject({ created: true, view: { fatigue: { after: 2, pause: "PT12H" } } });
  const second = await categories().replace("alerts", { respect_quiet_hours: false }, at(2));
  expect(second).toEqual({
    created: false,
    view: {
      key: "alerts",
      description: "",
      frequency_caps: [],
      respect_quiet_hours: false,
      allow_unsubscribe: true,
      marketing: false,
      fatigue: null,
      builtin: false,
      created_at: at(1).toISOString(),
      updated_at: expect.stringMatching(ISO),
    },
  });

  await categories().update(
    "alerts",
    { fatigue: { after: 4, pause: 3600 }, description: "Changed" },
    new Date(),
  );
  const patched = await categories().update("alerts", { allow_unsubscribe: false }, new Date());
  expect(patched).toMatchObject({
    description: "Changed",
    respect_quiet_hours: false,
    allow_unsubscribe: false,
    fatigue: { after: 4, pause: "PT1H" },
  });
  expect((await categories().update("alerts", { fatigue: null }, new Date())).fatigue).toBeNull();

  const missing = await refusal(categories().update("no-such", { marketing: true }, new Date()));
  expect({ code: missing.code, status: missing.status }).toEqual({ code: "not_found", status: 404 });
});

it("a built-in can be changed but not deleted (409); it stays built-in", async () => {
  const changed = await categories().update(
    "transactional",
    {
      frequency_caps: [{ period: "PT1M", limit: 10 }],
    },
    new Date(),
  );
  expect(changed).toMatchObject({ frequency_caps: [{ period: "PT1M", limit: 10 }], builtin: true });
  for (const key of ["transactional", "marketing"]) {
    const error = await refusal(categories().remove(key));
    expect({ code: error.code, status: error.status }).toEqual({ code: "conflict", status: 409 });
  }
  expect(await db.prisma.category.count({ where: { builtin: true } })).toBe(2);
  await categories().update("transactional", { frequency_caps: [] }, new Date());
});

it("DELETE of another category removes the row for good; its key can be created again", async () => {
  await categories().create("short-lived", { marketing: true }, T0);
  await categories().remove("short-lived");
  expect(await db.prisma.category.findUnique({ where: { key: "short-lived" } })).toBeNull();
  for (const p of [categories().get("short-lived"), categories().remove("short-lived")]) {
    const error = await refusal(p);
    expect({ code: error.code, status: error.status }).toEqual({ code: "not_found", status: 404 });
  }
  expect((await categories().create("short-lived", {}, at(5))).marketing).toBe(false);
  await categories().remove("short-lived");
});

it("lists newest first (ties by key, descending) and pages with the cursor", async () => {
  await db.prisma.category.deleteMany({ where: { builtin: false } });
  for (const [key, minute] of [
    ["k-1", 1],
    ["k-2", 3],
    ["k-3", 3],
    ["k-4", 2],
  ] as const)
    await categories().create(key, {}, at(minute));

  const keys: string[] = [];
  let cursor: string | undefined;
  const pages: number[] = [];
  do {
    const page = await categories().list({ limit: 4, cursor });
    keys.push(...page.items.map((c) => c.key));
    pages.push(page.items.length);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  // The built-ins share their creation time (one migration statement) and are newer than T0.
  expect(keys).toEqual(["transactional", "marketing", "k-3", "k-2", "k-4", "k-1"]);
  expect(pages).toEqual([4, 2]);
});
