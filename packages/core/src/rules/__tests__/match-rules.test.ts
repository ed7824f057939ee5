import {
  matchRules,
  toEventRuleOutcome,
  type MatchableRule,
  type MatchAgent,
  type MatchEvent,
} from "../match-rules";

interface TestRule extends MatchableRule {
  channels: string[];
}

function rule(key: string, overrides: Partial<TestRule> = {}): TestRule {
  return {
    key,
    event: "order.*",
    template: "tpl",
    category: "transactional",
    channels: ["email"],
    ...overrides,
  };
}

const event: MatchEvent = {
  id: "evt_1",
  name: "order.created",
  source: "api",
  created_at: "2025-03-01T10:00:00.000Z",
  data: { amount: 50 },
};
const existing = { templates: new Set(["tpl"]), categories: new Set(["transactional", "marketing"]) };
// Buckets (SHA-256 first 4 bytes mod 100) for recipient "user_1": welcome -> 85.
const recipient = { external_id: "user_1" };

function outcomes(rules: TestRule[], options: { agent?: MatchAgent | null; event?: MatchEvent } = {}) {
  return matchRules({ event: options.event ?? event, recipient, rules, agent: options.agent, existing }).map(
    (m) => toEventRuleOutcome(m),
  );
}

describe("matchRules", () => {
  it("orders by priority desc, then key asc, and lists only rules whose pattern sees the event", () => {
    const result = outcomes([
      rule("b"),
      rule("a"),
      rule("z", { priority: 5 }),
      rule("low", { priority: -1 }),
      rule("other", { event: "user.*", priority: 100 }),
      rule("off", { enabled: false, priority: 100 }),
    ]);
    expect(result).toEqual([
      { rule: "z", matched: true },
      { rule: "a", matched: true },
      { rule: "b", matched: true },
      { rule: "low", matched: true },
    ]);
  });

  it.each([
    [
      "condition false",
      { condition: { ">": [{ var: "data.amount" }, 100] } },
      { rule: "r", matched: false, reason: "condition_false" },
    ],
    ["condition true", { condition: { "<": [{ var: "data.amount" }, 100] } }, { rule: "r", matched: true }],
    [
      "condition literal false",
      { condition: false },
      { rule: "r", matched: false, reason: "condition_false" },
    ],
    ["condition null means none", { condition: null }, { rule: "r", matched: true }],
    [
      "unknown operator",
      { condition: { regex: ["a", "b"] } },
      { rule: "r", matched: false, reason: "condition_error: unknown operator: regex" },
    ],
    [
      "exception",
      { condition: { merge: [1, { missing_some: [1, null] }] } },
      {
        rule: "r",
        matched: false,
        reason: "condition_error: Cannot read properties of null (reading 'length')",
      },
    ],
    ["missing template", { template: "gone" }, { rule: "r", matched: true, reason: "misconfigured" }],
    ["missing category", { category: "gone" }, { rule: "r", matched: true, reason: "misconfigured" }],
  ])("%s", (_name, overrides, expected) => {
    expect(outcomes([rule("r", overrides as Partial<TestRule>)])).toEqual([expected]);
  });

  it.each([
    [85, { rule: "welcome", matched: false, reason: "outside_rollout" }],
    [86, { rule: "welcome", matched: true }],
    [0, { rule: "welcome", matched: false, reason: "outside_rollout" }],
  ])("rollout %i%% for a person in bucket 85", (percent, expected) => {
    expect(outcomes([rule("welcome", { rollout_percent: percent })])).toEqual([expected]);
  });

  it("checks rollout before the condition", () => {
    const result = outcomes([rule("welcome", { rollout_percent: 10, condition: { nope: 1 } })]);
    expect(result).toEqual([{ rule: "welcome", matched: false, reason: "outside_rollout" }]);
  });

  it("stop_processing hides lower rules once it matched, whatever its outcome", () => {
    const rules = [
      rule("first", { priority: 10 }),
      rule("stopper", { priority: 5, stop_processing: true, template: "gone" }),
      rule("after", { priority: 1 }),
      rule("after2", { priority: 1 }),
    ];
    expect(outcomes(rules)).toEqual([
      { rule: "first", matched: true },
      { rule: "stopper", matched: true, reason: "misconfigured" },
    ]);
  });

  it.each([
    ["condition false", { condition: false }, "condition_false"],
    ["outside rollout", { rollout_percent: 1 }, "outside_rollout"],
    ["condition error", { condition: { x: 1 } }, "condition_error: unknown operator: x"],
  ])("stop_processing does not apply when not matched (%s)", (_name, overrides, reason) => {
    const rules = [rule("welcome", { stop_processing: true, ...overrides } as Partial<TestRule>), rule("zz")];
    expect(outcomes(rules)).toEqual([
      { rule: "welcome", matched: false, reason },
      { rule: "zz", matched: true },
    ]);
  });

  it("keeps the caller's rule object in each result", () => {
    const r = rule("r", { channels: ["sms", "email"] });
    const [match] = matchRules({ event, recipient, rules: [r], existing });
    expect(match).toEqual({ kind: "fire", rule: r, matched: true });
    expect(match?.rule.channels).toEqual(["sms", "email"]);
  });

  it("wildcards never see svc events; exact names do", () => {
    const svcEvent: MatchEvent = { ...event, name: "svc.approval_requested", source: "svc" };
    const rules = [
      rule("all", { event: "*" }),
      rule("svcs", { event: "svc.*" }),
      rule("exact", { event: "svc.approval_requested" }),
    ];
    expect(outcomes(rules, { event: svcEvent })).toEqual([{ rule: "exact", matched: true }]);
  });

  describe("agents", () => {
    const agent = (overrides: Partial<MatchAgent>): MatchAgent => ({
      key: "bot",
      enabled: true,
      deleted: false,
      ...overrides,
    });
    const rules = [rule("tx", { priority: 2 }), rule("mk", { category: "marketing", priority: 1 })];

    it.each([
      [
        "any category",
        agent({}),
        [
          { rule: "tx", matched: true },
          { rule: "mk", matched: true },
        ],
      ],
      [
        "null categories mean any",
        agent({ categories: null }),
        [
          { rule: "tx", matched: true },
          { rule: "mk", matched: true },
        ],
      ],
      [
        "limited categories",
        agent({ categories: ["marketing"] }),
        [
          { rule: "tx", matched: true, reason: "agent_not_allowed" },
          { rule: "mk", matched: true },
        ],
      ],
      [
        "no categories",
        agent({ categories: [] }),
        [
          { rule: "tx", matched: true, reason: "agent_not_allowed" },
          { rule: "mk", matched: true, reason: "agent_not_allowed" },
        ],
      ],
      [
        "disabled",
        agent({ enabled: false }),
        [
          { rule: "tx", matched: true, reason: "agent_not_allowed" },
          { rule: "mk", matched: true, reason: "agent_not_allowed" },
        ],
      ],
      [
        "deleted",
        agent({ deleted: true, enabled: false }),
        [
          { rule: "tx", matched: true, reason: "agent_deleted" },
          { rule: "mk", matched: true, reason: "agent_deleted" },
        ],
      ],
    ])("%s", (_name, a, expected) => {
      expect(outcomes(rules, { agent: a })).toEqual(expected);
    });

    it("reports misconfigured before agent problems", () => {
      expect(outcomes([rule("r", { template: "gone" })], { agent: agent({ deleted: true }) })).toEqual([
        { rule: "r", matched: true, reason: "misconfigured" },
      ]);
    });
  });

  it("toEventRuleOutcome adds the caller's message or digest fields", () => {
    const [match] = matchRules({ event, recipient, rules: [rule("r")], existing });
    expect(toEventRuleOutcome(match!, { reason: "digested", digest_id: "dig_1" })).toEqual({
      rule: "r",
      matched: true,
      reason: "digested",
      digest_id: "dig_1",
    });
    expect(toEventRuleOutcome(match!, { status: "queued", message_id: "msg_1" })).toEqual({
      rule: "r",
      matched: true,
      status: "queued",
      message_id: "msg_1",
    });
  });
});
