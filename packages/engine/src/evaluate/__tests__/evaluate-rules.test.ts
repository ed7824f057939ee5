import { parseConfig } from "@svc/config";
import { AppError, newId, type Principal } from "@svc/core";
import { Prisma, type MessageStatus } from "@svc/store";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { evaluateRules, type EvaluateInput } from "../evaluate-rules";

// The dry run (docs/events.md "The dry run", "Rules", "Outcomes", "Events from agents"): the
// outcome each rule would give, by ingest's matching and policy as of the injected `now`, written
// nowhere; `duplicate` for rules an earlier event of this sender already messaged; `svc.*` names
// seen by exact-name rules only.

let db: TestDatabase;
const config = parseConfig({ channels: { email: { provider: "console" }, sms: { provider: "console" } } });
// Monday 2025-03-03, outside the default quiet hours (22:00-08:00 UTC).
const MONDAY = (time: string) => new Date(`2025-03-03T${time}:00.000Z`);
const TUESDAY = (time: string) => new Date(`2025-03-04T${time}:00.000Z`);
const NOW = MONDAY("12:00");
const BACKEND: Principal = { keyId: "key_admin1", keyName: "admin", scopes: ["admin"], agentKey: null };
const agentKey = (agent: string): Principal => ({
  keyId: `key_${agent}`,
  keyName: agent,
  scopes: ["events:write"],
  agentKey: agent,
});

beforeAll(async () => {
  db = await createTestDatabase("engine_evaluate");
  await db.prisma.template.create({
    data: { key: "tpl", locales: { en: { title: "{{ event.name }}", body: "b" } } as Prisma.InputJsonValue },
  });
  await db.prisma.category.createMany({
    data: [
      { key: "capped", respect_quiet_hours: false, frequency_caps: [{ period: 86400, limit: 2 }] },
      { key: "tired", fatigue: { after: 1, pause: 86400 } },
    ],
  });
  await db.prisma.recipient.create({
    data: {
      id: "rcp_ann",
      external_id: "ann",
      locale: "en",
      attributes: { plan: "pro" },
      addresses: { create: [{ channel: "email", value: "ann@example.com" }] },
    },
  });
});
afterAll(() => db.drop());
// Each test names its own rules; a wildcard rule must not reach the next test.
afterEach(() => db.prisma.rule.deleteMany({}));

const evaluate = (input: EvaluateInput, principal: Principal = BACKEND, now: Date = NOW) =>
  evaluateRules({ prisma: db.prisma, config, now: () => now }, principal, input);

interface RuleFields {
  key: string;
  event: string;
  category?: string;
  template?: string;
  channels?: string[];
  priority?: number;
  condition?: unknown;
  digest?: Record<string, unknown>;
  rollout_percent?: number;
  stop_processing?: boolean;
  enabled?: boolean;
  cooldown_seconds?: number;
}

async function rules(...fields: RuleFields[]) {
  for (const { condition, digest, ...rest } of fields)
    await db.prisma.rule.create({
      data: {
        template: "tpl",
        category: "transactional",
        channels: ["email"],
        ...rest,
        condition: condition === undefined ? Prisma.DbNull : (condition as Prisma.InputJsonValue),
        digest: digest === undefined ? Prisma.DbNull : (digest as Prisma.InputJsonValue),
      },
    });
}

/** A message to ann already in the database (send_at given), as earlier deliveries left it. */
async function earlierMessage(fields: {
  sendAt: Date;
  category?: string;
  status?: MessageStatus;
  agent?: string;
  dedupKey?: string;
}) {
  await db.prisma.message.create({
    data: {
      id: newId("message"),
      status: fields.status ?? "sent",
      recipient_id: "rcp_ann",
      recipient_external_id: "ann",
      sender: fields.agent ?? "backend",
      agent_key: fields.agent ?? null,
      category: fields.category ?? "transactional",
      importance: "normal",
      claimed_importance: "normal",
      channels: ["email"],
      send_at: fields.sendAt,
      link_nonce: "n",
      dedup_key: fields.dedupKey ?? null,
    },
  });
}

/** Rows of every table a real ingest of the event would write to. */
async function rowCounts() {
  const p = db.prisma;
  return {
    events: await p.event.count(),
    outcomes: await p.eventOutcome.count(),
    messages: await p.message.count(),
    digests: await p.digest.count(),
    digestItems: await p.digestItem.count(),
    recipients: await p.recipient.count(),
    fatigue: await p.fatigueState.count(),
    outbox: await p.outboxEntry.count(),
    reviewLinks: await p.reviewLink.count(),
  };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error: unknown = await promise.then(
    () => new Error("expected a refusal"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const DIGEST = {
  window: 600,
  deliver_at: null,
  days: null,
  key: null,
  send_after: null,
  max_items: 50,
  summarize: false,
  summary_fields: [],
};

it("lists one outcome per listed rule in rule order (priority, then key by code point) and writes nothing", async () => {
  await rules(
    { key: "a-send", event: "order.*", priority: 5 },
    { key: "B-digest", event: "order.shipped", priority: 5, digest: DIGEST },
    { key: "c-vip", event: "order.shipped", priority: 9, condition: { "==": [{ var: "data.total" }, 1000] } },
    {
      key: "d-pro",
      event: "*.shipped",
      priority: 1,
      condition: { "==": [{ var: "recipient.attributes.plan" }, "pro"] },
    },
    { key: "e-nobody", event: "order.shipped", rollout_percent: 0 },
    { key: "f-broken", event: "order.shipped", template: "no-such-template" },
    { key: "g-text", event: "order.shipped", channels: ["sms"] },
    { key: "h-off", event: "order.shipped", enabled: false },
    { key: "i-error", event: "order.shipped", condition: { "<": [{ var: "data.total" }, { nope: [] }] } },
    { key: "j-tired", event: "order.shipped", category: "tired", priority: -1 },
    { key: "z-other", event: "order.paid" },
  );
  const before = await rowCounts();

  const result = await evaluate({ name: "order.shipped", recipient: "ann", data: { total: 5 } });
  expect(result).toEqual({
    name: "order.shipped",
    recipient: "ann",
    dry_run: true,
    outcome: [
      { rule: "c-vip", matched: false, reason: "condition_false" },
      { rule: "B-digest", matched: true, reason: "digested" },
      { rule: "a-send", matched: true, status: "queued" },
      { rule: "d-pro", matched: true, status: "queued" },
      { rule: "e-nobody", matched: false, reason: "outside_rollout" },
      { rule: "f-broken", matched: true, reason: "misconfigured" },
      { rule: "g-text", matched: true, status: "suppressed", reason: "no_reachable_channel" },
      { rule: "i-error", matched: false, reason: expect.stringMatching(/^condition_error: /) },
      { rule: "j-tired", matched: true, status: "queued" },
    ],
  });
  // No message, digest, outcome, event, fatigue state or webhook event was written.
  expect(await rowCounts()).toEqual(before);
  // Deciding again gives the same answer: nothing was counted the first time.
  expect((await evaluate({ name: "order.shipped", recipient: "ann", data: { total: 5 } })).outcome).toEqual(
    result.outcome,
  );
});

it("stops below a matched stop_processing rule, whatever that rule's own outcome", async () => {
  await rules(
    { key: "stop-1", event: "stop.test", priority: 3, stop_processing: true, template: "missing" },
    { key: "stop-2", event: "stop.test", priority: 2 },
  );
  expect((await evaluate({ name: "stop.test", recipient: "ann" })).outcome).toEqual([
    { rule: "stop-1", matched: true, reason: "misconfigured" },
  ]);
});

it("decides as of the injected now: the condition sees the event time, and rolling caps count around it", async () => {
  await rules(
    {
      key: "at-noon",
      event: "clock.test",
      condition: { "==": [{ var: "event.created_at" }, NOW.toISOString()] },
    },
    { key: "capped-rule", event: "clock.test", category: "capped" },
  );
  // docs/policy.md "Limits": 2 per P1D, messages sent Monday 09:00 and 15:00.
  await earlierMessage({ sendAt: MONDAY("09:00"), category: "capped" });
  await earlierMessage({ sendAt: MONDAY("15:00"), category: "capped" });
  // Suppressed and cancelled messages never count.
  await earlierMessage({ sendAt: MONDAY("10:00"), category: "capped", status: "suppressed" });
  await earlierMessage({ sendAt: MONDAY("11:00"), category: "capped", status: "cancelled" });

  const at = async (now: Date) =>
    (await evaluate({ name: "clock.test", recipient: "ann" }, BACKEND, now)).outcome;
  expect(await at(NOW)).toEqual([
    { rule: "at-noon", matched: true, status: "queued" },
    { rule: "capped-rule", matched: true, status: "suppressed", reason: "frequency_cap: 2 per P1D" },
  ]);
  expect(await at(TUESDAY("08:00"))).toEqual([
    { rule: "at-noon", matched: false, reason: "condition_false" },
    { rule: "capped-rule", matched: true, status: "suppressed", reason: "frequency_cap: 2 per P1D" },
  ]);
  expect((await at(TUESDAY("09:00")))[1]).toEqual({ rule: "capped-rule", matched: true, status: "queued" });
});

it("counts the messages earlier rules of the same event would send, as ingest does", async () => {
  // docs/events.md "Rules": a later rule's caps count the messages earlier rules of the event
  // planned; "The dry run": the same decision as ingest. A week after the other tests' messages.
  const nextMonday = new Date("2025-03-10T12:00:00.000Z");
  await rules(
    { key: "first", event: "twice.test", category: "capped", priority: 2 },
    { key: "second", event: "twice.test", category: "capped", priority: 1 },
  );
  await earlierMessage({ sendAt: new Date("2025-03-10T09:00:00.000Z"), category: "capped" });
  const { outcome } = await evaluate({ name: "twice.test", recipient: "ann" }, BACKEND, nextMonday);
  expect(outcome).toEqual([
    { rule: "first", matched: true, status: "queued" },
    { rule: "second", matched: true, status: "suppressed", reason: "frequency_cap: 2 per P1D" },
  ]);
});

it("an agent's event fires only in its categories, within its budget; disabled, deleted and unknown agents are reported", async () => {
  await rules(
    { key: "agent-ops", event: "deploy.failed", category: "transactional" },
    { key: "agent-mkt", event: "deploy.failed", category: "marketing" },
  );
  await db.prisma.agent.createMany({
    data: [
      { key: "ops-bot", name: "Ops", categories: ["transactional"] },
      { key: "held-bot", name: "Held", approval: true },
      { key: "busy-bot", name: "Busy", frequency_caps: [{ period: 3600, limit: 1 }] },
      { key: "off-bot", name: "Off", enabled: false },
      { key: "gone-bot", name: "Gone", deleted_at: MONDAY("08:00") },
    ],
  });
  await earlierMessage({ sendAt: MONDAY("11:30"), agent: "busy-bot", status: "pending_approval" });
  const before = await rowCounts();
  const as = async (agent: string) =>
    (await evaluate({ name: "deploy.failed", recipient: "ann" }, agentKey(agent))).outcome;

  expect(await as("ops-bot")).toEqual([
    { rule: "agent-mkt", matched: true, reason: "agent_not_allowed" },
    { rule: "agent-ops", matched: true, status: "queued" },
  ]);
  // `approval: true` holds every message of the agent; nobody is told in a dry run.
  expect((await as("held-bot")).map((o) => o.status)).toEqual(["pending_approval", "pending_approval"]);
  // A held message counts against the agent's budget (docs/policy.md "Limits").
  expect(await as("busy-bot")).toEqual([
    { rule: "agent-mkt", matched: true, status: "suppressed", reason: "agent_budget: 1 per PT1H" },
    { rule: "agent-ops", matched: true, status: "suppressed", reason: "agent_budget: 1 per PT1H" },
  ]);
  expect((await as("off-bot")).map((o) => o.reason)).toEqual(["agent_not_allowed", "agent_not_allowed"]);
  expect((await as("gone-bot")).map((o) => o.reason)).toEqual(["agent_deleted", "agent_deleted"]);
  expect((await as("never-existed")).map((o) => o.reason)).toEqual(["agent_deleted", "agent_deleted"]);
  expect(await rowCounts()).toEqual(before);
});

it("svc.* names are the service's own: only exact-name rules see them; wildcards see every other name", async () => {
  await rules(
    { key: "svc-exact", event: "svc.approval_requested" },
    { key: "svc-star", event: "svc.*" },
    { key: "everything", event: "*" },
  );
  const names = async (name: string) =>
    (await evaluate({ name, recipient: "ann" })).outcome
      .map((o) => o.rule)
      .filter((r) => r.startsWith("svc-") || r === "everything");
  expect(await names("svc.approval_requested")).toEqual(["svc-exact"]);
  expect(await names("svc.other")).toEqual([]);
  expect(await names("svcx.approval_requested")).toEqual(["everything"]);
});

it("with an idempotency_key naming this sender's earlier event, rules it already messaged report duplicate", async () => {
  await rules({ key: "dup-a", event: "dup.test" }, { key: "dup-b", event: "dup.test" });
  const earlier = await db.prisma.event.create({
    data: {
      id: newId("event"),
      name: "dup.test",
      sender: "backend",
      idempotency_key: "order-77",
      recipient_id: "rcp_ann",
      recipient_external_id: "ann",
      status: "processed",
    },
  });
  // The earlier event messaged dup-a only (dup-b was added since).
  await earlierMessage({ sendAt: MONDAY("11:00"), dedupKey: `evt:${earlier.id}:dup-a`, status: "sent" });

  const outcome = async (key: string | undefined, principal: Principal = BACKEND) =>
    (await evaluate({ name: "dup.test", recipient: "ann", idempotency_key: key }, principal)).outcome;
  expect(await outcome("order-77")).toEqual([
    { rule: "dup-a", matched: true, status: "suppressed", reason: "duplicate" },
    { rule: "dup-b", matched: true, status: "queued" },
  ]);
  const fresh = [
    { rule: "dup-a", matched: true, status: "queued" },
    { rule: "dup-b", matched: true, status: "queued" },
  ];
  expect(await outcome(undefined)).toEqual(fresh);
  expect(await outcome("order-78")).toEqual(fresh);
  // Keys are scoped per sender: an agent's key of the same name names nothing of the backend's.
  await db.prisma.agent.create({ data: { key: "dup-bot", name: "Dup" } });
  expect(await outcome("order-77", agentKey("dup-bot"))).toEqual(fresh);
});

it("refuses what POST /v1/events would: 422 for a bad name or recipient; 404 for an unknown person, who is not created", async () => {
  const before = await rowCounts();
  const badName = await refusal(evaluate({ name: "no spaces allowed", recipient: "ann" }));
  expect({ code: badName.code, status: badName.status }).toEqual({ code: "validation", status: 422 });
  expect(badName.errors?.map((e) => ({ loc: e.loc, type: e.type }))).toEqual([
    { loc: ["body", "name"], type: "value_error" },
  ]);
  for (const recipient of ["", "ann\u0007", "x".repeat(256)]) {
    const error = await refusal(evaluate({ name: "order.shipped", recipient }));
    expect(error.errors?.map((e) => e.loc)).toEqual([["body", "recipient"]]);
  }
  const unknown = await refusal(evaluate({ name: "order.shipped", recipient: "nobody" }));
  expect({ code: unknown.code, status: unknown.status }).toEqual({ code: "not_found", status: 404 });
  expect(await db.prisma.recipient.findUnique({ where: { external_id: "nobody" } })).toBeNull();
  expect(await rowCounts()).toEqual(before);
});
