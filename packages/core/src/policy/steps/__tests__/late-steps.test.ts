import { NOW, runStep, type ContextOverrides } from "../../__tests__/context-factory";
import type { ApprovalView, StepOutcome } from "../../context";
import { INITIAL_FATIGUE } from "../../fatigue";
import { approval } from "../approval";
import { fatigue } from "../fatigue";
import { rendering } from "../rendering";

const PASS: StepOutcome = { kind: "pass" };
const AGENT = { key: "helper", frequencyCaps: [], maxImportance: "high" as const, approvalTtlSeconds: 3600 };
const SETTINGS = { after: 3, pauseSeconds: 86_400 };

describe("fatigue step", () => {
  test.each<[string, ContextOverrides, StepOutcome]>([
    ["category without fatigue", { fatigue: { ...INITIAL_FATIGUE, sentSinceEngagement: 99 } }, PASS],
    [
      "counting",
      { category: { fatigue: SETTINGS }, fatigue: { ...INITIAL_FATIGUE, sentSinceEngagement: 1 } },
      { kind: "change", patch: { fatigueIfQueued: { ...INITIAL_FATIGUE, sentSinceEngagement: 2 } } },
    ],
    [
      "pause starts: stored even though suppressed",
      { category: { fatigue: SETTINGS }, fatigue: { ...INITIAL_FATIGUE, sentSinceEngagement: 3 } },
      {
        kind: "drop",
        status: "suppressed",
        reason: "fatigue",
        patch: {
          fatigueAlways: {
            ...INITIAL_FATIGUE,
            sentSinceEngagement: 3,
            pausedUntil: new Date("2024-01-16T12:00:00Z"),
          },
        },
      },
    ],
    [
      "paused: nothing to store",
      {
        category: { fatigue: SETTINGS },
        fatigue: {
          ...INITIAL_FATIGUE,
          sentSinceEngagement: 3,
          pausedUntil: new Date("2024-01-16T00:00:00Z"),
        },
      },
      { kind: "drop", status: "suppressed", reason: "fatigue" },
    ],
  ])("%s", async (_why, o, outcome) => {
    expect(await runStep(fatigue, o)).toEqual(outcome);
  });
});

describe("rendering", () => {
  test("content from the render callback, asked with locale, channels, importance and send time", async () => {
    const seen: unknown[] = [];
    const outcome = await runStep(
      rendering,
      {
        recipient: { locale: "de-AT" },
        render: async (request) => {
          seen.push(request);
          return { ok: true, content: { title: "Hallo" } };
        },
      },
      { channels: ["push"], importance: "high" },
    );
    expect(outcome).toEqual({ kind: "change", patch: { content: { title: "Hallo" } } });
    expect(seen).toEqual([{ locale: "de-AT", channels: ["push"], importance: "high", sendAt: NOW }]);
  });

  test.each([
    ["no usable locale", "template_error: no usable locale"],
    ["unknown filter 'shout'", "template_error: unknown filter 'shout'"],
  ])("render error %j fails the message", async (error, reason) => {
    expect(await runStep(rendering, { render: () => ({ ok: false, error }) })).toEqual({
      kind: "drop",
      status: "failed",
      reason,
    });
  });
});

describe("approval", () => {
  const always = () => true;
  test.each<[string, ContextOverrides, StepOutcome]>([
    ["backend messages are never held", { requiresApproval: always }, PASS],
    ["agent without an approval condition", { message: { agent: AGENT } }, PASS],
    [
      "agent, condition holds",
      { message: { agent: AGENT }, requiresApproval: always },
      { kind: "hold", reason: null },
    ],
    ["agent, condition false", { message: { agent: AGENT }, requiresApproval: () => false }, PASS],
    [
      "agent, async condition",
      { message: { agent: AGENT }, requiresApproval: async () => true },
      { kind: "hold", reason: null },
    ],
    [
      "already approved by a reviewer",
      { message: { agent: AGENT, approved: true }, requiresApproval: always },
      PASS,
    ],
  ])("%s", async (_why, o, outcome) => {
    expect(await runStep(approval, o)).toEqual(outcome);
  });

  test("the condition sees category, importance and channels of the draft", async () => {
    const views: ApprovalView[] = [];
    await runStep(
      approval,
      { message: { agent: AGENT }, requiresApproval: (v) => (views.push(v), false) },
      { importance: "high", channels: ["push"] },
    );
    expect(views).toEqual([{ category: "updates", importance: "high", channels: ["push"] }]);
  });
});
