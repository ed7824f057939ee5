import { AppError } from "@svc/core";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { agentsResource } from "../agent-crud";

// Agents as an admin resource (docs/agents.md "Fields", "Deleting an agent"; docs/api.md "Admin
// resources", "Lists and cursors"): defaults on create and PUT, PATCH of given fields only, the
// category check, soft delete with its key kept taken, and newest-first paging.

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("engine_agents");
  await db.prisma.category.create({ data: { key: "ops-alerts" } });
});
afterAll(() => db.drop());

const T0 = new Date("2025-03-03T09:00:00.000Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const agents = (now: Date = T0) => agentsResource({ prisma: db.prisma, now: () => now });
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The AppError a promise rejects with (fails the test when it resolves or throws anything else). */
async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error: unknown = await promise.then(
    () => new Error("expected a refusal"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const DEFAULT_FIELDS = {
  description: "",
  categories: null,
  frequency_caps: [{ period: "P1D", limit: 5 }],
  max_importance: "high",
  approval: null,
  approval_ttl_seconds: 86400,
  reviewers: [],
  enabled: true,
  deleted_at: null,
};

it("creates with the documented defaults; created_at is the injected time; the row stores caps in seconds", async () => {
  const view = await agents().create("defaults-bot", { name: "Defaults" }, T0);
  expect(view).toEqual({
    key: "defaults-bot",
    name: "Defaults",
    ...DEFAULT_FIELDS,
    created_at: T0.toISOString(),
    updated_at: expect.stringMatching(ISO),
  });
  const row = await db.prisma.agent.findUniqueOrThrow({ where: { key: "defaults-bot" } });
  expect(row).toMatchObject({
    frequency_caps: [{ period: 86400, limit: 5 }],
    categories: null,
    approval: null,
    created_at: T0,
  });
  expect(await agents().get("defaults-bot")).toEqual(view);
});

it("stores the given fields: periods normalised (never weeks), lists deduplicated, approval kept", async () => {
  const view = await agents().create(
    "deploy-bot",
    {
      name: "Deploy bot",
      description: "Tells on-call engineers about failed deploys",
      categories: ["ops-alerts", "transactional", "ops-alerts"],
      frequency_caps: [
        { period: "PT1H", limit: 3 },
        { period: "P1W", limit: 10 },
        { period: 90, limit: 1 },
      ],
      max_importance: "normal",
      approval: { "==": [{ var: "message.importance" }, "high"] },
      approval_ttl_seconds: 600,
      reviewers: ["ada", "bob", "ada"],
      enabled: false,
    },
    T0,
  );
  expect(view).toMatchObject({
    categories: ["ops-alerts", "transactional"],
    frequency_caps: [
      { period: "PT1H", limit: 3 },
      { period: "P7D", limit: 10 },
      { period: "PT1M30S", limit: 1 },
    ],
    max_importance: "normal",
    approval: { "==": [{ var: "message.importance" }, "high"] },
    approval_ttl_seconds: 600,
    reviewers: ["ada", "bob"],
    enabled: false,
  });
  const row = await db.prisma.agent.findUniqueOrThrow({ where: { key: "deploy-bot" } });
  expect(row.frequency_caps).toEqual([
    { period: 3600, limit: 3 },
    { period: 604800, limit: 10 },
    { period: 90, limit: 1 },
  ]);
});

it("422 lists every problem at once (unknown category, bad period, unknown operator) and writes nothing", async () => {
  const error = await refusal(
    agents().create(
      "bad-bot",
      {
        name: "Bad",
        categories: ["ops-alerts", "no-such-category"],
        frequency_caps: [
          { period: "P1D", limit: 1 },
          { period: "P1M", limit: 2 },
        ],
        approval: { nope: [1] },
      },
      T0,
    ),
  );
  expect({ code: error.code, status: error.status }).toEqual({ code: "validation", status: 422 });
  expect(error.errors?.map(({ loc, type }) => ({ loc, type }))).toEqual([
    { loc: ["body", "frequency_caps", 1, "period"], type: "value_error" },
    { loc: ["body", "approval"], type: "value_error" },
    { loc: ["body", "categories", 1], type: "value_error" },
  ]);
  expect(await db.prisma.agent.findUnique({ where: { key: "bad-bot" } })).toBeNull();

  // PATCH checks the same way and leaves the row as it was.
  await agents().create("patch-check", { name: "P" }, T0);
  const patch = await refusal(agents().update("patch-check", { categories: ["gone"] }, new Date()));
  expect(patch.errors?.map((e) => e.loc)).toEqual([["body", "categories", 0]]);
  expect((await agents().get("patch-check")).categories).toBeNull();
});

it("POST with a taken key is 409; PUT creates (created: true), then replaces with defaults for fields left out", async () => {
  const taken = await refusal(agents().create("deploy-bot", { name: "again" }, T0));
  expect({ code: taken.code, status: taken.status }).toEqual({ code: "conflict", status: 409 });

  const created = await agents(at(1)).replace(
    "put-bot",
    { name: "Put", reviewers: ["ada"], max_importance: "low", categories: [] },
    at(1),
  );
  expect(created.created).toBe(true);
  expect(created.view).toMatchObject({ reviewers: ["ada"], max_importance: "low", categories: [] });

  const replaced = await agents(at(2)).replace("put-bot", { name: "Put again" }, at(2));
  expect(replaced.created).toBe(false);
  expect(replaced.view).toEqual({
    key: "put-bot",
    name: "Put again",
    ...DEFAULT_FIELDS,
    // A replace keeps the row's creation time.
    created_at: at(1).toISOString(),
    updated_at: expect.stringMatching(ISO),
  });
});

it("PATCH changes only the given fields; an unknown key is 404", async () => {
  await agents().create(
    "patch-bot",
    { name: "Patch", reviewers: ["ada"], frequency_caps: [{ period: "PT1H", limit: 2 }] },
    T0,
  );
  const view = await agents().update("patch-bot", { enabled: false, approval: true }, new Date());
  expect(view).toMatchObject({
    name: "Patch",
    reviewers: ["ada"],
    frequency_caps: [{ period: "PT1H", limit: 2 }],
    enabled: false,
    approval: true,
  });
  // `approval: null` goes back to "never held" (SQL NULL, not JSON null).
  await agents().update("patch-bot", { approval: null, frequency_caps: [] }, new Date());
  const [row] = await db.prisma.$queryRaw<{ sql_null: boolean; caps: unknown; enabled: boolean }[]>`
    SELECT approval IS NULL AS sql_null, frequency_caps AS caps, enabled FROM agents WHERE key = 'patch-bot'`;
  expect(row).toEqual({ sql_null: true, caps: [], enabled: false });

  const missing = await refusal(agents().update("no-such-bot", { enabled: true }, new Date()));
  expect({ code: missing.code, status: missing.status }).toEqual({ code: "not_found", status: 404 });
});

it("DELETE is soft: 404 on reads and PATCH, gone from lists, the row kept with deleted_at; the key stays taken", async () => {
  const deletedAt = at(30);
  await agents().create("gone-bot", { name: "Gone" }, T0);
  await agents(deletedAt).remove("gone-bot");

  const row = await db.prisma.agent.findUniqueOrThrow({ where: { key: "gone-bot" } });
  expect(row.deleted_at).toEqual(deletedAt);
  const codes = async (p: Promise<unknown>) => {
    const e = await refusal(p);
    return [e.code, e.status];
  };
  expect(await codes(agents().get("gone-bot"))).toEqual(["not_found", 404]);
  expect(await codes(agents().update("gone-bot", { name: "x" }, new Date()))).toEqual(["not_found", 404]);
  expect(await codes(agents().remove("gone-bot"))).toEqual(["not_found", 404]);
  expect(await codes(agents().create("gone-bot", { name: "x" }, T0))).toEqual(["conflict", 409]);
  expect(await codes(agents().replace("gone-bot", { name: "x" }, T0))).toEqual(["conflict", 409]);
  // A second delete did not move the deletion time; nothing revived the row.
  expect(await db.prisma.agent.findUniqueOrThrow({ where: { key: "gone-bot" } })).toMatchObject({
    deleted_at: deletedAt,
    name: "Gone",
  });
  const { items } = await agents().list({ limit: 500 });
  expect(items.map((a) => a.key)).not.toContain("gone-bot");
});

it("lists newest first (ties by key, descending), pages with the cursor without repeats, 422 for a foreign cursor", async () => {
  await db.prisma.agent.deleteMany({});
  const created = [
    ["a-bot", 10],
    ["b-bot", 10],
    ["c-bot", 20],
    ["d-bot", 5],
    ["e-bot", 15],
  ] as const;
  for (const [key, minute] of created) await agents().create(key, { name: key }, at(minute));
  await agents().remove("e-bot");

  const first = await agents().list({ limit: 2 });
  expect(first.items.map((a) => a.key)).toEqual(["c-bot", "b-bot"]);
  expect(first.next_cursor).toEqual(expect.any(String));
  // An agent created between the pages (newer than all) does not shift the next page.
  await agents().create("f-bot", { name: "f" }, at(60));
  const second = await agents().list({ limit: 2, cursor: first.next_cursor! });
  expect(second.items.map((a) => a.key)).toEqual(["a-bot", "d-bot"]);
  expect(second.next_cursor).toBeNull();

  const foreign = await refusal(agents().list({ cursor: "not-a-cursor" }));
  expect({ code: foreign.code, status: foreign.status }).toEqual({ code: "validation", status: 422 });
  expect(foreign.errors?.map((e) => e.loc)).toEqual([["query", "cursor"]]);
});
