import fc from "fast-check";
import { parseConfig } from "@svc/config";
import { AGENT_BUDGET_COUNTING_STATUSES } from "@svc/core";
import {
  Prisma,
  loadIngestSnapshots,
  messageHistory,
  type HistoryRow,
  type PrismaClient,
  type TransactionClient,
} from "@svc/store";
import { historyQuerySelects, readPolicyHistories } from "../../compose/policy-history";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { decideEvent, type EventDecision } from "../decide-event";
import { forgetIngestConfig } from "../ingest-config-cache";
import { directReads, snapshotReads } from "../ingest-reads";
import { digestPolicy } from "./ingest-fixtures";

// One decision, two ways to read (ingest-reads.ts): random configurations, people, histories and
// events go through decide-event.ts once with the snapshot reads ingest uses and once with plain
// per-table reads, each in its own transaction that is rolled back. The outcomes, the messages
// decided (every column but random ids), the fatigue left and the follow-ups must be the same.

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("ingest_read_paths");
});
afterAll(() => db.drop());

const config = parseConfig({
  channels: { email: { provider: "console" }, sms: { provider: "console" } },
  compliance: { us_texting_rules: true, sms_channels: ["sms"] },
});

const CHANNELS = ["email", "sms", "push"] as const;
const OWN_CATEGORIES = ["news", "alerts"] as const;
const CATEGORY_KEYS = ["transactional", "marketing", ...OWN_CATEGORIES, "ghost"] as const;
const importance = fc.constantFrom("low", "normal", "high", "critical" as const);
/** Mostly `common`, now and then one of `rare` (so most rules fire and the odd cases still come up). */
const mostly = <T>(common: T, ...rare: T[]) =>
  fc.oneof({ weight: 4, arbitrary: fc.constant(common) }, { weight: 1, arbitrary: fc.constantFrom(...rare) });
/** Null three times in four. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
const sub = <T>(values: readonly T[]) => fc.subarray([...values]);

const capsArb = fc.array(
  fc.record({ period: fc.constantFrom(3600, 86_400), limit: fc.integer({ min: 1, max: 3 }) }),
  { maxLength: 2 },
);

const categoryArb = fc.record({
  exists: mostly(true, false),
  frequency_caps: capsArb,
  respect_quiet_hours: fc.boolean(),
  allow_unsubscribe: fc.boolean(),
  marketing: fc.boolean(),
  fatigue: fc.option(fc.record({ after: fc.integer({ min: 1, max: 3 }), pause: fc.constant(3600) })),
});

const ruleArb = fc.record({
  event: mostly<string>("order.created", "order.*", "*", "other.event", "svc.*"),
  template: mostly<string>("tpl", "tpl_de", "broken", "missing"),
  category: mostly<string>("news", "transactional", "marketing", "alerts", "ghost"),
  channels: mostly<string[]>(["email", "sms"], ["sms"], ["push", "email"], []),
  importance,
  condition: mostly<unknown>(null, { "==": [{ var: "data.n" }, 1] }, { no_such_operator: [] }),
  digest: sometimes(
    fc.record({
      window: fc.constantFrom(60, 3600),
      send_after: fc.constantFrom(null, 2),
      key: fc.constantFrom(null, "{{ data.n }}"),
    }),
  ),
  cooldown_seconds: fc.constantFrom(null, 3600),
  delay_seconds: fc.constantFrom(null, 600),
  priority: fc.integer({ min: 0, max: 2 }),
  stop_processing: fc.boolean(),
  rollout_percent: mostly(100, 0, 50),
});

const personArb = fc.record({
  exists: mostly(true, false),
  locale: fc.constantFrom(null, "en", "de-AT"),
  timezone: fc.constantFrom(null, "UTC", "America/New_York"),
  region: fc.constantFrom(null, "US-FL", "DE"),
  addresses: fc.array(fc.record({ channel: fc.constantFrom(...CHANNELS), enabled: mostly(true, false) }), {
    minLength: 1,
    maxLength: 3,
  }),
  unsubscribed: mostly<string[]>([], ["news"], ["marketing", "alerts"]),
  muted: mostly<string[]>([], ["sms"], ["email"]),
  quiet_hours: fc.constantFrom(null, { start: "22:00", end: "08:00" }, { start: "09:00", end: "09:00" }),
  fatigue: fc.option(
    fc.record({
      category: fc.constantFrom(...OWN_CATEGORIES),
      sent: fc.integer({ min: 0, max: 3 }),
      pausedMinutes: fc.constantFrom(null, -30, 30),
    }),
  ),
  history: fc.array(
    fc.record({
      category: fc.constantFrom(...CATEGORY_KEYS),
      rule: fc.constantFrom(null, "r0", "r1"),
      byAgent: fc.boolean(),
      status: fc.constantFrom("queued", "sent", "suppressed", "pending_approval" as const),
      channels: sub(CHANNELS),
      minutesAgo: fc.integer({ min: -120, max: 1500 }),
    }),
    { maxLength: 4 },
  ),
});

const agentArb = sometimes(
  fc.record({
    categories: fc.constantFrom(null, ["news"], ["news", "alerts", "transactional"]),
    frequency_caps: capsArb,
    max_importance: importance,
    approval: fc.constantFrom(null, true, { "==": [{ var: "message.category" }, "news"] }),
    enabled: mostly(true, false),
    deleted: mostly(false, true),
  }),
);

const scenarioArb = fc.record({
  categories: fc.tuple(categoryArb, categoryArb),
  rules: fc.array(ruleArb, { minLength: 2, maxLength: 4 }),
  person: personArb,
  agent: agentArb,
  event: fc.record({
    name: mostly("order.created", "other.event"),
    n: fc.integer({ min: 0, max: 2 }),
    inlineProfile: fc.boolean(),
  }),
  retriedRule: sometimes(fc.integer({ min: 0, max: 3 })),
  minuteOfDay: fc.integer({ min: 0, max: 1439 }),
});

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer S> ? S : never;

const EVENT_ID = "evt_01JREADPATHS0000000000000";
const json = (value: unknown) => (value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue));

async function seed(tx: TransactionClient, s: Scenario, now: Date): Promise<void> {
  for (const [i, key] of OWN_CATEGORIES.entries()) {
    const c = s.categories[i]!;
    if (!c.exists) continue;
    const { exists: _exists, fatigue, ...fields } = c;
    await tx.category.create({ data: { key, ...fields, fatigue: json(fatigue) } });
  }
  const locale = { title: "{{ event.name }} {{ data.n }}", body: "Hello {{ recipient.external_id }}" };
  await tx.template.create({ data: { key: "tpl", locales: { en: locale } } });
  await tx.template.create({
    data: {
      key: "tpl_de",
      default_locale: "de",
      locales: {
        de: { title: "Hallo", body: "n={{ data.n }}", channels: { sms: { body: "kurz" } } },
        en: locale,
      },
    },
  });
  // Fails to render (a filter that does not exist): the message fails with a template error.
  await tx.template.create({
    data: { key: "broken", locales: { en: { title: "x", body: "{{ data.n | no_such_filter }}" } } },
  });
  for (const [i, r] of s.rules.entries()) {
    const { digest, condition, ...fields } = r;
    await tx.rule.create({
      data: {
        key: `r${i}`,
        ...fields,
        condition: json(condition),
        digest: json(digest ? digestPolicy(digest) : null),
      },
    });
  }
  if (s.agent) {
    const { deleted, categories, approval, ...fields } = s.agent;
    await tx.agent.create({
      data: {
        key: "bot",
        name: "Bot",
        ...fields,
        categories: json(categories),
        approval: json(approval),
        deleted_at: deleted ? now : null,
      },
    });
  }
  const p = s.person;
  if (!p.exists) return;
  await tx.recipient.create({
    data: {
      id: "rcp_ada",
      external_id: "ada",
      locale: p.locale,
      timezone: p.timezone,
      region: p.region,
      quiet_hours: json(p.quiet_hours),
      unsubscribed_categories: p.unsubscribed,
      muted_channels: p.muted,
      addresses: {
        create: p.addresses.map((a, i) => ({
          channel: a.channel,
          value: a.channel === "sms" ? `+1305555010${i}` : `ada${i}@example.com`,
          enabled: a.enabled,
        })),
      },
    },
  });
  if (p.fatigue) {
    const paused = p.fatigue.pausedMinutes;
    await tx.fatigueState.create({
      data: {
        recipient_id: "rcp_ada",
        category: p.fatigue.category,
        sent_since_engagement: p.fatigue.sent,
        paused_until: paused === null ? null : new Date(now.getTime() + paused * 60_000),
      },
    });
  }
  for (const [i, h] of p.history.entries()) {
    await tx.message.create({
      data: {
        id: `msg_history_${i}`,
        status: h.status,
        recipient_id: "rcp_ada",
        recipient_external_id: "ada",
        sender: h.byAgent ? "bot" : "backend",
        agent_key: h.byAgent ? "bot" : null,
        category: h.category,
        rule: h.rule,
        importance: "normal",
        claimed_importance: "normal",
        channels: h.channels,
        send_at: new Date(now.getTime() - h.minutesAgo * 60_000),
        link_nonce: `nonce${i}`,
      },
    });
  }
}

async function insertEvent(tx: TransactionClient, s: Scenario, now: Date): Promise<void> {
  const agent = s.agent !== null && !s.event.inlineProfile;
  const profile = s.event.inlineProfile
    ? { external_id: "ada", locale: "de", addresses: [{ channel: "sms", value: "+13055550199" }] }
    : null;
  await tx.event.create({
    data: {
      id: EVENT_ID,
      name: s.event.name,
      sender: agent ? "bot" : "backend",
      agent_key: agent ? "bot" : null,
      api_key_id: "key_test",
      recipient_external_id: "ada",
      recipient_profile: json(profile),
      data: { n: s.event.n },
      created_at: now,
    },
  });
  if (s.retriedRule !== null && s.person.exists && s.retriedRule < s.rules.length) {
    // A message a first, interrupted ingest of this event already wrote for one rule.
    await tx.message.create({
      data: {
        id: "msg_retried",
        status: "queued",
        recipient_id: "rcp_ada",
        recipient_external_id: "ada",
        sender: "backend",
        category: "transactional",
        rule: `r${s.retriedRule}`,
        event_id: EVENT_ID,
        dedup_key: `evt:${EVENT_ID}:r${s.retriedRule}`,
        importance: "normal",
        claimed_importance: "normal",
        channels: ["email"],
        send_at: now,
        link_nonce: "nonce_retried",
      },
    });
  }
}

class Rollback {
  constructor(readonly decision: EventDecision) {}
}

type ReadPath = "snapshot" | "direct";

async function decideOnce(prisma: PrismaClient, s: Scenario, path: ReadPath): Promise<unknown> {
  const now = new Date(Date.UTC(2026, 5, 15, 0, s.minuteOfDay));
  forgetIngestConfig(prisma);
  try {
    await prisma.$transaction(async (tx) => {
      await seed(tx, s, now);
      await insertEvent(tx, s, now);
      const snapshot = (await loadIngestSnapshots(tx, [EVENT_ID])).get(EVENT_ID)!;
      const reads = path === "snapshot" ? snapshotReads(prisma, tx, snapshot) : directReads(tx);
      const deps = { prisma, config, now: () => now };
      throw new Rollback(await decideEvent(tx, deps, reads, snapshot.event, now));
    });
  } catch (error) {
    if (error instanceof Rollback) return normalise(error.decision);
    throw error;
  }
  throw new Error("the transaction was meant to roll back");
}

/** The decision with its random ids (messages, digests, a new person) replaced by stable names. */
function normalise(decision: EventDecision): unknown {
  const names = new Map<string, string>();
  decision.messages.forEach((m, i) => names.set(m.id, `message${i}`));
  decision.followUps.digests.forEach((d, i) => names.set(d.digestId, `digest${i}`));
  names.set(decision.recipientId, "person");
  const { messages, fatigue, agent, ...rest } = decision;
  const view = {
    ...rest,
    // The agent row as read (its timestamps are the seed's); its key says which one it was.
    agent: agent?.key ?? null,
    messages: messages.map(({ link_nonce: _nonce, ...row }) => row),
    fatigue: [...fatigue.entries()],
  };
  let text = JSON.stringify(view);
  for (const [id, name] of names) text = text.split(id).join(name);
  return JSON.parse(text);
}

/** Runs `numRuns` random scenarios through both read paths; returns what the decisions reached. */
async function compareReadPaths(seed: number, numRuns: number) {
  let decidedMessages = 0;
  const kinds = new Set<string>();
  await fc.assert(
    fc.asyncProperty(scenarioArb, async (scenario) => {
      const viaSnapshot = await decideOnce(db.prisma, scenario, "snapshot");
      const viaTables = await decideOnce(db.prisma, scenario, "direct");
      expect(viaSnapshot).toEqual(viaTables);
      decidedMessages += (viaSnapshot as { messages: unknown[] }).messages.length;
      for (const o of (viaSnapshot as { outcomes: { reason?: string; status?: string }[] }).outcomes)
        kinds.add(o.status ?? o.reason?.split(":")[0] ?? "none");
    }),
    { numRuns, seed },
  );
  return { decidedMessages, kinds: [...kinds] };
}

// A fixed seed whose scenarios reach every kind of outcome, so the coverage check below cannot
// depend on the luck of a random seed (a `failed` outcome is a rare branch: CI once drew a random
// seed, 212183726, whose 300 scenarios never reached one).
const COVERING_SEED = 20_261_124;

test("the snapshot reads and the direct reads decide every event the same way (a seed that reaches every outcome)", async () => {
  const reached = await compareReadPaths(COVERING_SEED, 300);
  // The scenarios reach the interesting part: messages were decided, not only skipped rules.
  expect(reached.decidedMessages).toBeGreaterThan(50);
  expect(reached.kinds).toEqual(
    expect.arrayContaining([
      "queued",
      "suppressed",
      "failed",
      "digested",
      "misconfigured",
      "outside_rollout",
    ]),
  );
}, 120_000);

test("the snapshot reads and the direct reads decide every event the same way (a new random seed each run)", async () => {
  // FC_SEED replays a failure: fast-check prints the seed and the shrunk scenario.
  const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
  await compareReadPaths(seed, 150);
}, 120_000);

// Rows decided earlier in a transaction and not written yet are counted by `historyQuerySelects`,
// rows written by the `messageHistory` statement: the two must select the same rows.
test("the history of planned rows selects exactly what the stored history selects", async () => {
  const rowArb = fc.record({
    recipient_id: fc.constantFrom("rcp_a", "rcp_b"),
    status: fc.constantFrom(
      "queued",
      "sending",
      "sent",
      "delivered",
      "suppressed",
      "pending_approval",
      "cancelled" as const,
    ),
    category: fc.constantFrom("news", "marketing", "alerts"),
    rule: fc.constantFrom(null, "r0", "r1"),
    agent_key: fc.constantFrom(null, "bot", "other"),
    channels: sub(CHANNELS),
    minutesAgo: fc.integer({ min: -60, max: 200 }),
  });
  const queryArb = fc.record({
    recipientId: fc.constantFrom("rcp_a", "rcp_b"),
    sinceMinutes: fc.integer({ min: 0, max: 180 }),
    category: fc.constantFrom("news", "marketing"),
    rule: fc.constantFrom(null, "r0"),
    agentKey: fc.constantFrom(null, "bot"),
    marketingTexts: fc.option(
      fc.record({ categories: sub(["marketing", "alerts"]), channels: sub(["sms", "push"]) }),
    ),
  });
  const now = new Date(Date.UTC(2026, 5, 15, 12));
  await fc.assert(
    fc.asyncProperty(fc.array(rowArb, { maxLength: 8 }), queryArb, async (rows, q) => {
      const query = {
        recipientId: q.recipientId,
        since: new Date(now.getTime() - q.sinceMinutes * 60_000),
        statuses: AGENT_BUDGET_COUNTING_STATUSES,
        category: q.category,
        rule: q.rule,
        agentKey: q.agentKey,
        marketingTexts: q.marketingTexts,
      };
      const planned = rows.map((r, i) => ({
        ...r,
        id: `msg_h${i}`,
        send_at: new Date(now.getTime() - r.minutesAgo * 60_000),
      }));
      const shape = (r: HistoryRow) =>
        `${r.send_at.toISOString()}|${r.status}|${r.category}|${r.rule}|${r.agent_key}|${r.channels.join("+")}`;
      const inMemory = planned
        .filter((r) => historyQuerySelects(query, r))
        .map(shape)
        .sort();
      let stored: string[] = [];
      let grouped: string[][] = [];
      // The same query read together with another person's (a broadcast group, compose-batch.ts).
      const other = {
        ...query,
        recipientId: query.recipientId === "rcp_a" ? "rcp_b" : "rcp_a",
        since: new Date(now.getTime() - 200 * 60_000),
        category: "alerts",
        marketingTexts: null,
      };
      try {
        await db.prisma.$transaction(async (tx) => {
          for (const id of ["rcp_a", "rcp_b"]) await tx.recipient.create({ data: { id, external_id: id } });
          for (const r of planned) {
            const { minutesAgo: _m, ...row } = r;
            await tx.message.create({
              data: {
                ...row,
                recipient_external_id: row.recipient_id,
                sender: "backend",
                importance: "normal",
                claimed_importance: "normal",
                link_nonce: row.id,
              },
            });
          }
          stored = (await messageHistory(tx, query)).map(shape).sort();
          const otherStored = (await messageHistory(tx, other)).map(shape).sort();
          grouped = (await readPolicyHistories(tx, [query, null, other])).map((rows) =>
            rows.map(shape).sort(),
          );
          expect(grouped[2]).toEqual(otherStored);
          throw new Error("rollback");
        });
      } catch (error) {
        if ((error as Error).message !== "rollback") throw error;
      }
      expect(stored).toEqual(inMemory);
      expect(grouped.slice(0, 2)).toEqual([stored, []]);
    }),
    { numRuns: 100 },
  );
}, 120_000);
