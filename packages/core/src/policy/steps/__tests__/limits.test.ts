import { hours, NOW, runStep, type ContextOverrides } from "../../__tests__/context-factory";
import type { PolicyDraft, StepOutcome } from "../../context";
import { agentBudget } from "../agent-budget";
import { complianceCap } from "../compliance-cap";
import { cooldown } from "../cooldown";
import { expiry } from "../expiry";
import { frequencyCaps } from "../frequency-caps";

const PASS: StepOutcome = { kind: "pass" };
const suppressed = (reason: string): StepOutcome => ({ kind: "drop", status: "suppressed", reason });
const around = (...offsetsInHours: number[]) => offsetsInHours.map((h) => new Date(NOW.getTime() + hours(h)));

const MARKETING = {
  frequencyCaps: [
    { limit: 2, periodSeconds: 86_400 },
    { limit: 5, periodSeconds: 604_800 },
  ],
};
const AGENT = {
  key: "helper",
  frequencyCaps: [{ limit: 5, periodSeconds: 86_400 }],
  maxImportance: "high" as const,
  approvalTtlSeconds: 86_400,
};
const FLORIDA_TEXT: ContextOverrides = {
  category: { marketing: true },
  compliance: { usTextingRules: true },
  message: { channels: ["sms"] },
  recipient: { region: "US-FL", timezone: "America/New_York" },
};

describe("expiry", () => {
  test.each<[string, ContextOverrides, Partial<PolicyDraft>, StepOutcome]>([
    ["no expiry", {}, {}, PASS],
    ["goes out before expiry", { message: { expiresAt: new Date(NOW.getTime() + 1) } }, {}, PASS],
    ["goes out exactly at expiry", { message: { expiresAt: NOW } }, {}, PASS],
    [
      "quiet hours pushed it past expiry",
      { message: { expiresAt: around(6)[0]! } },
      { sendAt: around(20)[0]! },
      suppressed("expired"),
    ],
  ])("%s", async (_why, o, draft, outcome) => {
    expect(await runStep(expiry, o, draft)).toEqual(outcome);
  });
});

describe("cooldown (both sides of send_at)", () => {
  const rule = (cooldownSeconds: number | null) => ({
    message: { rule: { key: "r", delaySeconds: 0, cooldownSeconds } },
  });
  test.each<[string, ContextOverrides, StepOutcome]>([
    ["no cooldown configured", { ...rule(null), history: { rule: around(-0.1) } }, PASS],
    [
      "earlier message within cooldown",
      { ...rule(3600), history: { rule: around(-0.5) } },
      suppressed("cooldown"),
    ],
    ["earlier message exactly one cooldown ago", { ...rule(3600), history: { rule: around(-1) } }, PASS],
    [
      "later scheduled message within cooldown",
      { ...rule(3600), history: { rule: around(0.5) } },
      suppressed("cooldown"),
    ],
    [
      "messages outside the cooldown on both sides",
      { ...rule(3600), history: { rule: around(-2, 2) } },
      PASS,
    ],
    [
      "critical messages respect cooldown",
      {
        ...rule(3600),
        message: { importance: "critical", rule: { key: "r", delaySeconds: 0, cooldownSeconds: 3600 } },
        history: { rule: around(-0.5) },
      },
      suppressed("cooldown"),
    ],
    ["direct sends have no rule", { message: { rule: null }, history: { rule: around(-0.5) } }, PASS],
  ])("%s", async (_why, o, outcome) => {
    expect(await runStep(cooldown, o)).toEqual(outcome);
  });
});

describe("frequency caps (both sides of send_at)", () => {
  test.each<[string, ContextOverrides, Partial<PolicyDraft>, StepOutcome]>([
    ["no caps", { history: { category: around(-1, -2, -3) } }, {}, PASS],
    ["one sent today, 2 per day", { category: MARKETING, history: { category: around(-3) } }, {}, PASS],
    [
      "two sent today",
      { category: MARKETING, history: { category: around(-3, -1) } },
      {},
      suppressed("frequency_cap: 2 per P1D"),
    ],
    [
      "one sent, one scheduled tonight",
      { category: MARKETING, history: { category: around(-3, 8) } },
      {},
      suppressed("frequency_cap: 2 per P1D"),
    ],
    [
      "two sent yesterday morning: window has rolled",
      { category: MARKETING, history: { category: around(-26, -25) } },
      {},
      PASS,
    ],
    [
      "23 h before and 23 h after: no window holds three",
      { category: MARKETING, history: { category: around(-23, 23) } },
      {},
      PASS,
    ],
    [
      "weekly cap: five this week, one per day",
      { category: MARKETING, history: { category: around(-24 * 5, -24 * 4, -24 * 3, -24 * 2, -24) } },
      {},
      suppressed("frequency_cap: 5 per P7D"),
    ],
    [
      "measured at the deferred send_at, not now",
      { category: MARKETING, history: { category: around(-3, -1) } },
      { sendAt: around(23)[0]! },
      PASS,
    ],
    [
      "critical is exempt",
      { category: MARKETING, message: { importance: "critical" }, history: { category: around(-3, -1) } },
      { importance: "critical" },
      PASS,
    ],
    [
      "high is not exempt",
      { category: MARKETING, history: { category: around(-3, -1) } },
      { importance: "high" },
      suppressed("frequency_cap: 2 per P1D"),
    ],
    [
      "hourly cap reason",
      {
        category: { frequencyCaps: [{ limit: 1, periodSeconds: 3600 }] },
        history: { category: around(-0.5) },
      },
      {},
      suppressed("frequency_cap: 1 per PT1H"),
    ],
  ])("%s", async (_why, o, draft, outcome) => {
    expect(await runStep(frequencyCaps, o, draft)).toEqual(outcome);
  });
});

describe("agent budget (both sides, held messages count)", () => {
  test.each<[string, ContextOverrides, Partial<PolicyDraft>, StepOutcome]>([
    ["not an agent", { history: { agent: around(-1, -2, -3, -4, -5) } }, {}, PASS],
    ["four today", { message: { agent: AGENT }, history: { agent: around(-1, -2, -3, -4) } }, {}, PASS],
    [
      "five today",
      { message: { agent: AGENT }, history: { agent: around(-1, -2, -3, -4, -5) } },
      {},
      suppressed("agent_budget: 5 per P1D"),
    ],
    [
      "three before, two scheduled later",
      { message: { agent: AGENT }, history: { agent: around(-1, -2, -3, 4, 5) } },
      {},
      suppressed("agent_budget: 5 per P1D"),
    ],
    [
      "critical is not exempt",
      { message: { agent: AGENT, importance: "critical" }, history: { agent: around(-1, -2, -3, -4, -5) } },
      { importance: "critical" },
      suppressed("agent_budget: 5 per P1D"),
    ],
  ])("%s", async (_why, o, draft, outcome) => {
    expect(await runStep(agentBudget, o, draft)).toEqual(outcome);
  });
});

describe("compliance cap (US marketing texts)", () => {
  test.each<[string, ContextOverrides, StepOutcome]>([
    ["Florida, two texts today", { ...FLORIDA_TEXT, history: { marketingTexts: around(-1, -2) } }, PASS],
    [
      "Florida, three texts today",
      { ...FLORIDA_TEXT, history: { marketingTexts: around(-1, -2, -3) } },
      suppressed("compliance: 3 marketing texts per 24 hours (Florida)"),
    ],
    [
      "Florida, two before and one scheduled after",
      { ...FLORIDA_TEXT, history: { marketingTexts: around(-1, -2, 5) } },
      suppressed("compliance: 3 marketing texts per 24 hours (Florida)"),
    ],
    [
      "Florida, three over two days",
      { ...FLORIDA_TEXT, history: { marketingTexts: around(-30, -2, 23) } },
      PASS,
    ],
    [
      "Oregon",
      { ...FLORIDA_TEXT, recipient: { region: "US-OR" }, history: { marketingTexts: around(-1, -2, -3) } },
      suppressed("compliance: 3 marketing texts per 24 hours (Oregon)"),
    ],
    [
      "state unknown, strict",
      { ...FLORIDA_TEXT, recipient: { region: null }, history: { marketingTexts: around(-1, -2, -3) } },
      suppressed("compliance: 3 marketing texts per 24 hours (state unknown)"),
    ],
    [
      "state unknown, federal: no cap",
      {
        ...FLORIDA_TEXT,
        compliance: { usTextingRules: true, unknownState: "federal" },
        recipient: { region: null },
        history: { marketingTexts: around(-1, -2, -3) },
      },
      PASS,
    ],
    [
      "Texas has no cap",
      { ...FLORIDA_TEXT, recipient: { region: "US-TX" }, history: { marketingTexts: around(-1, -2, -3) } },
      PASS,
    ],
    [
      "rules off",
      {
        ...FLORIDA_TEXT,
        compliance: { usTextingRules: false },
        history: { marketingTexts: around(-1, -2, -3) },
      },
      PASS,
    ],
    [
      "transactional text",
      { ...FLORIDA_TEXT, category: { marketing: false }, history: { marketingTexts: around(-1, -2, -3) } },
      PASS,
    ],
    [
      "another channel remains: only the text channel goes",
      {
        ...FLORIDA_TEXT,
        message: { channels: ["push", "sms", "email"] },
        history: { marketingTexts: around(-1, -2, -3) },
      },
      { kind: "change", patch: { channels: ["push", "email"] } },
    ],
  ])("%s", async (_why, o, outcome) => {
    expect(await runStep(complianceCap, o)).toEqual(outcome);
  });
});
