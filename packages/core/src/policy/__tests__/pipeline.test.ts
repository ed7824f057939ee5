import { hours, makeContext, NOW, type ContextOverrides } from "./context-factory";
import { INITIAL_FATIGUE } from "../fatigue";
import { decidePolicy, POLICY_STEPS } from "../pipeline";

const around = (...h: number[]) => h.map((n) => new Date(NOW.getTime() + hours(n)));
const AGENT = {
  key: "helper",
  frequencyCaps: [{ limit: 5, periodSeconds: 86_400 }],
  maxImportance: "high" as const,
  approvalTtlSeconds: 3600,
};
const decide = (o: ContextOverrides = {}) => decidePolicy(makeContext(o));

test("the steps run in the documented order", () => {
  expect(POLICY_STEPS.map((s) => s.name)).toEqual([
    "importance_ceiling",
    "duplicate",
    "unsubscribe",
    "consent_expiry",
    "reachability",
    "send_time",
    "compliance_cap",
    "expiry",
    "cooldown",
    "frequency_caps",
    "fatigue",
    "agent_budget",
    "rendering",
    "approval",
  ]);
});

test("a message nothing stops is queued now, with its content and a trace of every step", async () => {
  expect(await decide({ message: { channels: ["slack", "push", "email"] } })).toEqual({
    status: "queued",
    statusReason: null,
    sendAt: NOW,
    importance: "normal",
    claimedImportance: "normal",
    channels: ["push", "email"],
    content: { title: "Hello" },
    fatigue: null,
    approvalExpiresAt: null,
    duplicateOf: null,
    steps: [
      { step: "importance_ceiling", outcome: "pass" },
      { step: "duplicate", outcome: "pass" },
      { step: "unsubscribe", outcome: "pass" },
      { step: "consent_expiry", outcome: "pass" },
      { step: "reachability", outcome: "change", detail: "channels" },
      { step: "send_time", outcome: "pass" },
      { step: "compliance_cap", outcome: "pass" },
      { step: "expiry", outcome: "pass" },
      { step: "cooldown", outcome: "pass" },
      { step: "frequency_caps", outcome: "pass" },
      { step: "fatigue", outcome: "pass" },
      { step: "agent_budget", outcome: "pass" },
      { step: "rendering", outcome: "change", detail: "content" },
      { step: "approval", outcome: "pass" },
    ],
  });
});

describe("the first failing step gives the reason", () => {
  const capped = {
    category: { frequencyCaps: [{ limit: 1, periodSeconds: 86_400 }] },
    history: { category: around(-1) },
  };
  const floridaText = {
    category: { marketing: true, frequencyCaps: [{ limit: 1, periodSeconds: 86_400 }] },
    compliance: { usTextingRules: true },
    recipient: { region: "US-FL", timezone: "America/New_York" },
    history: { marketingTexts: around(-1, -2, -3), category: around(-1) },
  };
  test.each<[string, ContextOverrides, string, string]>([
    [
      "duplicate before unsubscribed",
      { message: { duplicateOf: "msg_0" }, recipient: { unsubscribedCategories: ["updates"] } },
      "suppressed",
      "duplicate",
    ],
    [
      "unsubscribed before consent and reachability",
      {
        recipient: { unsubscribedCategories: ["updates"], consentExpiresAt: { updates: NOW }, addresses: [] },
      },
      "suppressed",
      "unsubscribed",
    ],
    [
      "consent expiry before reachability",
      { recipient: { consentExpiresAt: { updates: NOW }, addresses: [] } },
      "suppressed",
      "consent_expired",
    ],
    [
      "reachability before caps",
      { ...capped, message: { channels: ["slack"] } },
      "suppressed",
      "no_reachable_channel",
    ],
    [
      "compliance cap before expiry",
      { ...floridaText, message: { channels: ["sms"], expiresAt: around(-1)[0]! } },
      "suppressed",
      "compliance: 3 marketing texts per 24 hours (Florida)",
    ],
    [
      "expiry before cooldown (step order, not the order of the reason table)",
      {
        message: { expiresAt: around(1)[0]!, rule: { key: "r", delaySeconds: 7200, cooldownSeconds: 3600 } },
        history: { rule: around(1.5) },
      },
      "suppressed",
      "expired",
    ],
    [
      "cooldown before caps",
      {
        ...capped,
        message: { rule: { key: "r", delaySeconds: 0, cooldownSeconds: 3600 } },
        history: { category: around(-0.5), rule: around(-0.5) },
      },
      "suppressed",
      "cooldown",
    ],
    [
      "caps before fatigue",
      {
        ...capped,
        category: { ...capped.category, fatigue: { after: 1, pauseSeconds: 3600 } },
        fatigue: { ...INITIAL_FATIGUE, sentSinceEngagement: 5 },
      },
      "suppressed",
      "frequency_cap: 1 per P1D",
    ],
    [
      "fatigue before agent budget",
      {
        category: { fatigue: { after: 1, pauseSeconds: 3600 } },
        fatigue: { ...INITIAL_FATIGUE, sentSinceEngagement: 5 },
        message: { agent: AGENT },
        history: { agent: around(-1, -2, -3, -4, -5) },
      },
      "suppressed",
      "fatigue",
    ],
    [
      "agent budget before rendering",
      {
        message: { agent: AGENT },
        history: { agent: around(-1, -2, -3, -4, -5) },
        render: () => ({ ok: false, error: "boom" }),
      },
      "suppressed",
      "agent_budget: 5 per P1D",
    ],
    [
      "rendering before approval",
      {
        message: { agent: AGENT },
        render: () => ({ ok: false, error: "no usable locale" }),
        requiresApproval: () => true,
      },
      "failed",
      "template_error: no usable locale",
    ],
  ])("%s", async (_why, o, status, reason) => {
    const decision = await decide(o);
    expect([decision.status, decision.statusReason]).toEqual([status, reason]);
  });
});

test("a held agent message waits with its review deadline and no reason", async () => {
  const decision = await decide({ message: { agent: AGENT }, requiresApproval: () => true });
  expect(decision).toMatchObject({
    status: "pending_approval",
    statusReason: null,
    approvalExpiresAt: new Date("2024-01-15T13:00:00Z"),
    content: { title: "Hello" },
  });
});

test("a duplicate names the original (dry runs show it; real runs return the original)", async () => {
  expect(await decide({ message: { duplicateOf: "msg_0" } })).toMatchObject({
    status: "suppressed",
    statusReason: "duplicate",
    duplicateOf: "msg_0",
  });
});

describe("send time flows into the later steps", () => {
  test("quiet hours push past expires_at: expired", async () => {
    const decision = await decide({
      now: new Date("2024-01-15T23:00:00Z"),
      message: { expiresAt: new Date("2024-01-16T06:00:00Z") },
    });
    expect([decision.status, decision.statusReason, decision.sendAt]).toEqual([
      "suppressed",
      "expired",
      new Date("2024-01-16T08:00:00Z"),
    ]);
  });

  test("caps are measured at the deferred send_at: tomorrow's scheduled messages count", async () => {
    const decision = await decide({
      now: new Date("2024-01-15T23:00:00Z"),
      category: { frequencyCaps: [{ limit: 2, periodSeconds: 86_400 }] },
      history: { category: [new Date("2024-01-16T09:00:00Z"), new Date("2024-01-16T10:00:00Z")] },
    });
    expect([decision.status, decision.statusReason]).toEqual(["suppressed", "frequency_cap: 2 per P1D"]);
  });

  test("a future due time (broadcast send_at) is the starting point; a past one is now", async () => {
    expect((await decide({ message: { dueAt: around(2)[0]! } })).sendAt).toEqual(around(2)[0]);
    expect((await decide({ message: { dueAt: around(-2)[0]! } })).sendAt).toEqual(NOW);
  });

  test("the defer is traced with the new send time", async () => {
    const decision = await decide({
      message: { rule: { key: "r", delaySeconds: 600, cooldownSeconds: null } },
    });
    expect(decision.steps.find((s) => s.step === "send_time")).toEqual({
      step: "send_time",
      outcome: "defer",
      detail: "2024-01-15T12:10:00.000Z",
    });
  });
});

describe("critical", () => {
  const everythingLimits: ContextOverrides = {
    now: new Date("2024-01-15T23:00:00Z"),
    message: { importance: "critical", rule: { key: "r", delaySeconds: 600, cooldownSeconds: null } },
    category: {
      frequencyCaps: [{ limit: 1, periodSeconds: 86_400 }],
      fatigue: { after: 1, pauseSeconds: 86_400 },
    },
    history: { category: around(10, 11) },
    fatigue: { ...INITIAL_FATIGUE, sentSinceEngagement: 3, pausedUntil: new Date("2024-01-20T00:00:00Z") },
  };

  test("no delay, no quiet hours, no caps, no fatigue", async () => {
    const decision = await decide(everythingLimits);
    expect([decision.status, decision.statusReason, decision.sendAt]).toEqual([
      "queued",
      null,
      new Date("2024-01-15T23:00:00Z"),
    ]);
  });

  test("high gets none of these exemptions but fatigue", async () => {
    const decision = await decide({
      ...everythingLimits,
      message: { ...everythingLimits.message, importance: "high" },
    });
    expect([decision.status, decision.statusReason, decision.sendAt]).toEqual([
      "suppressed",
      "frequency_cap: 1 per P1D",
      new Date("2024-01-16T08:00:00Z"),
    ]);
  });

  test("still held to US texting hours (Texas, Sunday 10:00 → 12:00)", async () => {
    const decision = await decide({
      now: new Date("2024-06-09T15:00:00Z"),
      message: { importance: "critical", channels: ["sms"] },
      category: { marketing: true },
      compliance: { usTextingRules: true },
      recipient: { region: "US-TX", timezone: "America/Chicago" },
    });
    expect([decision.status, decision.sendAt]).toEqual(["queued", new Date("2024-06-09T17:00:00Z")]);
  });

  test("an agent's critical claim is lowered first, so quiet hours apply", async () => {
    const decision = await decide({
      now: new Date("2024-01-15T23:00:00Z"),
      message: { importance: "critical", agent: AGENT },
    });
    expect(decision).toMatchObject({
      status: "queued",
      importance: "high",
      claimedImportance: "critical",
      sendAt: new Date("2024-01-16T08:00:00Z"),
    });
  });
});

describe("fatigue state to store", () => {
  const settings = { category: { fatigue: { after: 2, pauseSeconds: 3600 } } };

  test("queued: the counted state", async () => {
    const decision = await decide({ ...settings, fatigue: { ...INITIAL_FATIGUE, sentSinceEngagement: 1 } });
    expect(decision.fatigue).toEqual({ ...INITIAL_FATIGUE, sentSinceEngagement: 2 });
  });

  test("suppressed by a later step: nothing counted", async () => {
    const decision = await decide({
      ...settings,
      fatigue: { ...INITIAL_FATIGUE, sentSinceEngagement: 1 },
      render: () => ({ ok: false, error: "x" }),
    });
    expect([decision.status, decision.fatigue]).toEqual(["failed", null]);
  });

  test("held for approval: not counted until it is queued", async () => {
    const decision = await decide({ ...settings, message: { agent: AGENT }, requiresApproval: () => true });
    expect([decision.status, decision.fatigue]).toEqual(["pending_approval", null]);
  });

  test("a pause that starts is stored with the suppression", async () => {
    const decision = await decide({ ...settings, fatigue: { ...INITIAL_FATIGUE, sentSinceEngagement: 2 } });
    expect([decision.status, decision.statusReason, decision.fatigue]).toEqual([
      "suppressed",
      "fatigue",
      { ...INITIAL_FATIGUE, sentSinceEngagement: 2, pausedUntil: new Date("2024-01-15T13:00:00Z") },
    ]);
  });
});

test("a custom step list runs in the given order (defers never move send_at back)", async () => {
  const ctx = makeContext();
  const decision = await decidePolicy(ctx, [
    { name: "later", run: () => ({ kind: "defer", until: around(3)[0]! }) },
    { name: "earlier", run: () => ({ kind: "defer", until: around(1)[0]! }) },
  ]);
  expect([decision.status, decision.sendAt, decision.content]).toEqual(["queued", around(3)[0], null]);
});
