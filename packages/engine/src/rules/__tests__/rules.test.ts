import { AppError, newId } from "@svc/core";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { checkTemplateString } from "../check-template-string";
import type { RuleInput } from "../rule-input";
import { rulesResource } from "../rules-resource";

// Rules as admin resources (docs/events.md "Rules", docs/api.md "Admin resources", docs/digests.md
// "The digest policy"): POST creates (409 on a taken key), PUT replaces or creates with defaults,
// PATCH changes only the given fields, references are not checked, what OpenAPI cannot check is a
// 422 naming each field, and disabling or deleting a rule cancels its open digests.

const NOW = new Date("2024-01-15T12:00:00.000Z");

let db: TestDatabase;
let clock: Date;
const tick = () => (clock = new Date(clock.getTime() + 1000));
const resource = (aiEnabled = false) =>
  rulesResource({ prisma: db.prisma, now: () => clock }, { aiEnabled, checkTemplateString });

beforeAll(async () => {
  db = await createTestDatabase("engine_rules");
});
afterAll(() => db.drop());
beforeEach(() => {
  clock = NOW;
});

const minimal = (extra: RuleInput = {}): RuleInput => ({
  event: "order.shipped",
  template: "shipped",
  category: "transactional",
  channels: ["push", "email"],
  ...extra,
});

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

test("create fills the defaults, stores periods in seconds and shows them as ISO 8601; a taken key is 409", async () => {
  const view = await resource().create(
    "ship-push",
    minimal({
      delay: "PT1H",
      expires_in: 86_400,
      cooldown_seconds: 600,
      channels: ["push", "email", "push"],
    }),
    clock,
  );
  expect(view).toEqual({
    key: "ship-push",
    name: "",
    event: "order.shipped",
    template: "shipped",
    category: "transactional",
    channels: ["push", "email"], // each once, in order
    importance: "normal",
    digest: null,
    condition: null,
    delay: "PT1H",
    cooldown_seconds: 600,
    expires_in: "P1D",
    rollout_percent: 100,
    priority: 0,
    stop_processing: false,
    enabled: true,
    created_at: NOW.toISOString(),
    // Prisma's @updatedAt writes the wall clock here, not the injected `now` (keyed-rows.ts sets created_at only).
    updated_at: expect.any(String),
  });
  expect(await db.prisma.rule.findUniqueOrThrow({ where: { key: "ship-push" } })).toMatchObject({
    delay_seconds: 3600,
    expires_in_seconds: 86_400,
    condition: null,
    digest: null,
  });
  // References are not checked when saved: a missing template makes the rule `misconfigured` later.
  await resource().create("later", minimal({ template: "not-yet", category: "not-yet" }), clock);
  const taken = await refusal(resource().create("ship-push", minimal({ name: "again" }), clock));
  expect(taken).toMatchObject({ code: "conflict", status: 409 });
  expect((await resource().get("ship-push")).name).toBe("");
});

test("what OpenAPI cannot check is one 422 naming every field; nothing is stored", async () => {
  const error = await refusal(
    resource().create(
      "broken",
      minimal({
        event: "order shipped",
        condition: { log: [1] },
        delay: "P1M",
        expires_in: "soon",
        digest: {
          window: "PT1H",
          deliver_at: "25:00",
          days: ["mon", "someday"],
          key: "{{ data.x | nosuch }}",
        },
      }),
      clock,
    ),
  );
  expect(error).toMatchObject({ code: "validation", status: 422 });
  expect(error.errors!.map((e) => [e.loc.join("."), e.type])).toEqual([
    ["body.event", "value_error"],
    ["body.condition.log", "value_error"], // `log` is no allowed operator
    ["body.delay", "value_error"],
    ["body.expires_in", "value_error"],
    ["body.digest", "value_error"],
    ["body.digest.deliver_at", "value_error"],
    ["body.digest.days.1", "enum"],
    ["body.digest.key", "template_error"],
  ]);
  expect(error.errors![7]!.msg).toBe("line 1: unknown filter: nosuch");
  expect(await db.prisma.rule.findUnique({ where: { key: "broken" } })).toBeNull();
});

test("digest policies: exactly one of window and deliver_at; days only with deliver_at; smart mode needs ai", async () => {
  const windowed = await resource().create("dig-window", minimal({ digest: { window: 1800 } }), clock);
  expect(windowed.digest).toEqual({ window: "PT30M", max_items: 50, summarize: false, summary_fields: [] });
  const daily = await resource().create(
    "dig-daily",
    minimal({
      digest: { deliver_at: "09:00", days: ["mon", "fri"], key: "{{ data.project }}", send_after: 20 },
    }),
    clock,
  );
  expect(daily.digest).toEqual({
    deliver_at: "09:00",
    days: ["mon", "fri"],
    key: "{{ data.project }}",
    send_after: 20,
    max_items: 50,
    summarize: false,
    summary_fields: [],
  });
  const cases: [RuleInput["digest"], string[]][] = [
    [{}, ["body.digest"]],
    [{ window: 8 * 86_400 }, ["body.digest.window"]],
    [{ window: "PT1H", days: ["mon"] }, ["body.digest.days"]],
    [{ window: "PT1H", summarize: true }, ["body.digest.summary_fields", "body.digest.summarize"]],
  ];
  for (const [digest, locs] of cases) {
    const error = await refusal(resource().create("dig-bad", minimal({ digest }), clock));
    expect(error.errors!.map((e) => e.loc.join("."))).toEqual(locs);
  }
  // With ai.enabled, smart mode is accepted once it names the fields the model may see.
  const smart = await resource(true).create(
    "dig-smart",
    minimal({ digest: { window: "PT1H", summarize: true, summary_fields: ["title"] } }),
    clock,
  );
  expect(smart.digest).toMatchObject({ summarize: true, summary_fields: ["title"] });
});

test("PUT replaces (fields left out back to their defaults) or creates; PATCH changes only what is given", async () => {
  const created = await resource().replace(
    "vip",
    minimal({
      priority: 50,
      condition: { "==": [{ var: "recipient.attributes.plan" }, "pro"] },
      rollout_percent: 10,
    }),
    clock,
  );
  expect(created.created).toBe(true);
  const replaced = await resource().replace("vip", minimal({ name: "VIP only" }), tick());
  expect(replaced.created).toBe(false);
  expect(replaced.view).toMatchObject({
    name: "VIP only",
    priority: 0,
    condition: null,
    rollout_percent: 100,
    created_at: NOW.toISOString(), // replacing keeps the creation time
  });
  const patched = await resource().update(
    "vip",
    { importance: "high", delay: null, stop_processing: true },
    NOW,
  );
  expect(patched).toMatchObject({
    name: "VIP only",
    event: "order.shipped",
    importance: "high",
    delay: null,
    stop_processing: true,
  });
  expect(await db.prisma.rule.findUniqueOrThrow({ where: { key: "vip" } })).toMatchObject({
    importance: "high",
    stop_processing: true,
    channels: ["push", "email"],
  });
  expect(await refusal(resource().update("nope", { enabled: false }, NOW))).toMatchObject({
    code: "not_found",
    status: 404,
  });
  expect(await refusal(resource().get("nope"))).toMatchObject({ code: "not_found", status: 404 });
});

test("list: newest first, paged by cursor without repeats", async () => {
  clock = new Date("2025-01-01T00:00:00.000Z"); // after every other rule of this file
  for (const key of ["list-a", "list-b", "list-c"]) await resource().create(key, minimal(), tick());
  const first = await resource().list({ limit: 2 });
  expect(first.items.map((r) => r.key)).toEqual(["list-c", "list-b"]);
  const second = await resource().list({ limit: 2, cursor: first.next_cursor! });
  expect(second.items[0]!.key).toBe("list-a");
  expect(second.items.map((r) => r.key)).not.toContain("list-b");
});

describe("digests of a rule", () => {
  let recipient: { id: string; external_id: string };
  beforeAll(async () => {
    recipient = await db.prisma.recipient.create({
      data: { id: newId("recipient"), external_id: "digest-person" },
    });
  });

  async function digest(ruleKey: string, status: "open" | "sent", group: string) {
    return db.prisma.digest.create({
      data: {
        id: newId("digest"),
        rule_key: ruleKey,
        recipient_id: recipient.id,
        recipient_external_id: recipient.external_id,
        key: group,
        open_key: status === "open" ? `${ruleKey}|${recipient.id}|${group}` : null,
        status,
        closes_at: new Date(NOW.getTime() + 3_600_000),
        count: 1,
      },
    });
  }
  const statusOf = async (id: string) =>
    db.prisma.digest.findUniqueOrThrow({
      where: { id },
      select: { status: true, status_reason: true, open_key: true, updated_at: true },
    });

  test("disabling a rule cancels its open digests (`rule disabled`), nobody else's, and no sent one", async () => {
    await resource().create("dig-off", minimal({ digest: { window: "PT1H" } }), clock);
    await resource().create("dig-other", minimal({ digest: { window: "PT1H" } }), clock);
    const open = await digest("dig-off", "open", "a");
    const sent = await digest("dig-off", "sent", "b");
    const other = await digest("dig-other", "open", "a");
    clock = new Date(NOW.getTime() + 60_000);
    await resource().update("dig-off", { name: "renamed" }, NOW); // still enabled: nothing happens
    expect((await statusOf(open.id)).status).toBe("open");
    await resource().update("dig-off", { enabled: false }, NOW);
    expect(await statusOf(open.id)).toEqual({
      status: "cancelled",
      status_reason: "rule disabled",
      open_key: null,
      updated_at: clock,
    });
    expect((await statusOf(sent.id)).status).toBe("sent");
    expect((await statusOf(other.id)).status).toBe("open");
  });

  test("deleting a rule removes it and cancels its open digests (`rule deleted`); deleting again is 404", async () => {
    await resource().create("dig-gone", minimal({ digest: { window: "PT1H" } }), clock);
    const open = await digest("dig-gone", "open", "a");
    await resource().remove("dig-gone");
    expect(await db.prisma.rule.findUnique({ where: { key: "dig-gone" } })).toBeNull();
    expect(await statusOf(open.id)).toMatchObject({ status: "cancelled", status_reason: "rule deleted" });
    expect(await refusal(resource().remove("dig-gone"))).toMatchObject({ code: "not_found", status: 404 });
    // The key is free again.
    expect((await resource().replace("dig-gone", minimal(), clock)).created).toBe(true);
  });
});

test("checkTemplateString: null when it compiles, else the error with its line", () => {
  expect(checkTemplateString("{{ data.project | lower }}")).toBeNull();
  expect(checkTemplateString("{{ data.project | nosuch }}")).toBe("line 1: unknown filter: nosuch");
  expect(checkTemplateString("ok\n{% if %}")).toMatch(/^line 2: /);
});
