import type { TestDatabase } from "@svc/testkit";
import type { AcceptEventDeps } from "../../events/accept-event";
import { ingestEvent } from "../ingest-event";
import type { IngestDeps } from "../ingest-types";
import {
  BACKEND,
  NOW,
  agentPrincipal,
  makeRecipient,
  makeRule,
  makeTemplate,
  outcomesOf,
  postEvent,
  startIngestEnv,
  type IngestTestEnv,
} from "./ingest-fixtures";

// Outcome lists (docs/events.md, "Outcomes") after a real ingest: which rules are listed, in which
// order, why.

let db: TestDatabase;
let deps: IngestDeps;
let accept: AcceptEventDeps;
let env: IngestTestEnv;

beforeAll(async () => {
  env = await startIngestEnv("ingest_outcomes");
  ({ db, deps, accept } = env);
  await makeTemplate(db.prisma, "tpl");
  await makeRecipient(db.prisma, "ann");
});

afterAll(() => env.close());

async function run(name: string, data: Record<string, unknown> = {}, principal = BACKEND, recipient = "ann") {
  const id = await postEvent(accept, { name, recipient, data }, principal);
  const result = await ingestEvent(deps, id);
  expect(result.status).toBe("processed");
  return { id, outcomes: await outcomesOf(db.prisma, id) };
}

const fired = (rule: string, status = "queued") => ({
  rule,
  matched: true,
  reason: null,
  status,
  message: true,
  digest: false,
});
const notMatched = (rule: string, reason: string) => ({
  rule,
  matched: false,
  reason,
  status: null,
  message: false,
  digest: false,
});
const blocked = (rule: string, reason: string) => ({
  rule,
  matched: true,
  reason,
  status: null,
  message: false,
  digest: false,
});

it("lists rules by priority then key, and none below a matched stop_processing rule", async () => {
  await makeRule(db.prisma, { key: "stop-b", event: "order.paid", priority: 5, stop_processing: true });
  await makeRule(db.prisma, {
    key: "stop-a",
    event: "order.paid",
    priority: 5,
    condition: { "==": [{ var: "data.vip" }, true] },
  });
  await makeRule(db.prisma, { key: "stop-top", event: "order.paid", priority: 9 });
  await makeRule(db.prisma, { key: "stop-low", event: "order.paid", priority: 1 });
  await makeRule(db.prisma, { key: "stop-off", event: "order.paid", priority: 7, enabled: false });

  expect((await run("order.paid", { vip: false })).outcomes).toEqual([
    fired("stop-top"),
    notMatched("stop-a", "condition_false"),
    fired("stop-b"),
  ]);
});

it("a stop_processing rule that does not match lets lower rules run", async () => {
  await makeRule(db.prisma, {
    key: "gate",
    event: "gate.test",
    priority: 2,
    stop_processing: true,
    condition: { "==": [1, 2] },
  });
  await makeRule(db.prisma, { key: "after-gate", event: "gate.test", priority: 1 });
  expect((await run("gate.test")).outcomes).toEqual([
    notMatched("gate", "condition_false"),
    fired("after-gate"),
  ]);
});

it.each([
  ["outside_rollout", { rollout_percent: 0 }, notMatched("r", "outside_rollout")],
  [
    "condition_false",
    { condition: { ">": [{ var: "data.total" }, 100] } },
    notMatched("r", "condition_false"),
  ],
  [
    "condition_error",
    { condition: { frobnicate: [1] } },
    notMatched("r", "condition_error: unknown operator: frobnicate"),
  ],
  ["missing template", { template: "no-such-template" }, blocked("r", "misconfigured")],
  ["missing category", { category: "no-such-category" }, blocked("r", "misconfigured")],
  [
    "no reachable channel",
    { channels: ["sms"] },
    { ...fired("r", "suppressed"), reason: "no_reachable_channel" },
  ],
  ["condition true", { condition: { "<": [{ var: "data.total" }, 100] } }, fired("r")],
])("%s", async (name, fields, expected) => {
  const event = `case.${name.replace(/ /g, "_")}`;
  await makeRule(db.prisma, { key: `r-${event}`, event, ...fields });
  const { outcomes } = await run(event, { total: 50 });
  expect(outcomes).toEqual([{ ...expected, rule: `r-${event}` }]);
});

it("stores the message's id and status on the outcome and links the event to the person", async () => {
  await makeRule(db.prisma, { key: "link", event: "link.test" });
  const { id } = await run("link.test", { msg: "there" });
  const outcome = await db.prisma.eventOutcome.findUniqueOrThrow({
    where: { event_id_rule_key: { event_id: id, rule_key: "link" } },
  });
  const message = await db.prisma.message.findUniqueOrThrow({ where: { id: outcome.message_id! } });
  expect(message).toMatchObject({
    status: "queued",
    event_id: id,
    rule: "link",
    dedup_key: `evt:${id}:link`,
    sender: "backend",
    recipient_external_id: "ann",
  });
  const event = await db.prisma.event.findUniqueOrThrow({ where: { id } });
  expect(event).toMatchObject({ status: "processed", recipient_id: "rcp_ann", error: null });
  expect(event.processed_at).not.toBeNull();
});

it("wildcard rules never see svc events; an exact name does", async () => {
  await makeRule(db.prisma, { key: "svc-exact", event: "svc.approval_requested" });
  await makeRule(db.prisma, { key: "svc-star", event: "svc.*" });
  await makeRule(db.prisma, { key: "all-star", event: "*" });
  try {
    // The service's own events are written by the service, never through POST /v1/events.
    await db.prisma.event.create({
      data: {
        id: "evt_01HSVC0000000000000000000A",
        name: "svc.approval_requested",
        source: "svc",
        sender: "svc",
        recipient_external_id: "ann",
        created_at: NOW,
      },
    });
    await ingestEvent(deps, "evt_01HSVC0000000000000000000A");
    expect(await outcomesOf(db.prisma, "evt_01HSVC0000000000000000000A")).toEqual([fired("svc-exact")]);

    expect((await run("anything.else")).outcomes).toEqual([fired("all-star")]);
  } finally {
    await db.prisma.rule.deleteMany({ where: { key: { in: ["svc-exact", "svc-star", "all-star"] } } });
  }
});

describe("agent events", () => {
  beforeAll(async () => {
    await db.prisma.agent.create({ data: { key: "helper", name: "Helper", categories: ["transactional"] } });
    await db.prisma.agent.create({ data: { key: "sleepy", name: "Sleepy", enabled: false } });
    await db.prisma.agent.create({ data: { key: "gone", name: "Gone", deleted_at: NOW } });
    await makeRule(db.prisma, {
      key: "agent-tx",
      event: "agent.stop",
      category: "transactional",
      priority: 2,
    });
    await makeRule(db.prisma, { key: "agent-mkt", event: "agent.stop", category: "marketing", priority: 1 });
  });

  it.each([
    [
      "allowed categories only",
      "helper",
      [{ ...fired("agent-tx") }, blocked("agent-mkt", "agent_not_allowed")],
    ],
    [
      "disabled",
      "sleepy",
      [blocked("agent-tx", "agent_not_allowed"), blocked("agent-mkt", "agent_not_allowed")],
    ],
    ["deleted", "gone", [blocked("agent-tx", "agent_deleted"), blocked("agent-mkt", "agent_deleted")]],
  ])("%s", async (_name, agent, expected) => {
    const { id, outcomes } = await run("agent.stop", {}, agentPrincipal(agent));
    expect(outcomes).toEqual(expected);
    const messages = await db.prisma.message.findMany({ where: { event_id: id } });
    expect(messages.map((m) => [m.agent_key, m.sender])).toEqual(
      agent === "helper" ? [["helper", "helper"]] : [],
    );
  });
});

describe("recipients", () => {
  beforeAll(() => makeRule(db.prisma, { key: "welcome", event: "signed.up" }));

  it("applies an inline profile before matching, so the new address is reachable", async () => {
    const id = await postEvent(accept, {
      name: "signed.up",
      recipient: {
        external_id: "bea",
        locale: "de",
        addresses: [{ channel: "email", value: "bea@example.com" }],
      },
    });
    await ingestEvent(deps, id);
    expect(await outcomesOf(db.prisma, id)).toEqual([fired("welcome")]);
    const bea = await db.prisma.recipient.findUniqueOrThrow({
      where: { external_id: "bea" },
      include: { addresses: true },
    });
    expect([bea.locale, bea.addresses.map((a) => a.value)]).toEqual(["de", ["bea@example.com"]]);
  });

  it("creates a bare profile for an unknown external id: nothing reachable yet", async () => {
    const { outcomes } = await run("signed.up", {}, BACKEND, "cid");
    expect(outcomes).toEqual([{ ...fired("welcome", "suppressed"), reason: "no_reachable_channel" }]);
    const cid = await db.prisma.recipient.findUniqueOrThrow({
      where: { external_id: "cid" },
      include: { addresses: true },
    });
    expect(cid.addresses).toEqual([]);
  });

  it("lets a condition read the stored profile", async () => {
    await db.prisma.recipient.update({ where: { id: "rcp_ann" }, data: { attributes: { plan: "pro" } } });
    await makeRule(db.prisma, {
      key: "pro-only",
      event: "plan.check",
      condition: { "==": [{ var: "recipient.attributes.plan" }, "pro"] },
    });
    expect((await run("plan.check")).outcomes).toEqual([fired("pro-only")]);
    expect((await run("plan.check", {}, BACKEND, "cid")).outcomes).toEqual([
      notMatched("pro-only", "condition_false"),
    ]);
  });
});

it("re-running ingest for a processed event changes nothing", async () => {
  await makeRule(db.prisma, { key: "once", event: "once.only" });
  const { id } = await run("once.only");
  const before = await Promise.all([
    db.prisma.message.count(),
    db.prisma.eventOutcome.count(),
    db.prisma.event.findUniqueOrThrow({ where: { id } }),
  ]);
  expect(await ingestEvent(deps, id)).toEqual({ status: "skipped", reason: "processed" });
  expect(await ingestEvent(deps, "evt_01HNOPE0000000000000000000")).toEqual({
    status: "skipped",
    reason: "not_found",
  });
  const after = await Promise.all([
    db.prisma.message.count(),
    db.prisma.eventOutcome.count(),
    db.prisma.event.findUniqueOrThrow({ where: { id } }),
  ]);
  expect(after).toEqual(before);
});
