// Test factory: a neutral context (Monday 2024-01-15 12:00 UTC, nothing limits the message);
// each test overrides only the section fields it is about.
import type {
  PolicyCategory,
  PolicyConfig,
  PolicyContext,
  PolicyDraft,
  PolicyHistory,
  PolicyMessage,
  PolicyRecipient,
  PolicyStep,
  StepOutcome,
} from "../context";

export interface TestContent {
  title: string;
}

export interface ContextOverrides {
  now?: Date;
  message?: Partial<PolicyMessage>;
  category?: Partial<PolicyCategory>;
  recipient?: Partial<PolicyRecipient>;
  config?: Partial<PolicyConfig>;
  compliance?: Partial<PolicyConfig["compliance"]>;
  history?: Partial<PolicyHistory>;
  fatigue?: PolicyContext["fatigue"];
  render?: PolicyContext<TestContent>["render"];
  requiresApproval?: PolicyContext["requiresApproval"];
}

export const NOW = new Date("2024-01-15T12:00:00Z");

export function makeContext(o: ContextOverrides = {}): PolicyContext<TestContent> {
  const config: PolicyConfig = {
    channels: ["email", "sms", "push"],
    inboxChannels: [],
    quietHours: { start: "22:00", end: "08:00" },
    defaultTimezone: "UTC",
    ...o.config,
    compliance: {
      usTextingRules: false,
      smsChannels: ["sms"],
      unknownState: "strict",
      ...o.config?.compliance,
      ...o.compliance,
    },
  };
  return {
    now: o.now ?? NOW,
    message: {
      id: "msg_1",
      category: "updates",
      importance: "normal",
      channels: ["email"],
      dueAt: null,
      expiresAt: null,
      rule: { key: "rule_1", delaySeconds: 0, cooldownSeconds: null },
      agent: null,
      duplicateOf: null,
      approved: false,
      ...o.message,
    },
    category: {
      key: "updates",
      frequencyCaps: [],
      respectQuietHours: true,
      allowUnsubscribe: true,
      marketing: false,
      fatigue: null,
      ...o.category,
    },
    recipient: {
      timezone: "UTC",
      locale: "en",
      region: null,
      quietHours: null,
      unsubscribedCategories: [],
      mutedChannels: [],
      addresses: [
        { channel: "email", value: "ada@example.com", enabled: true },
        { channel: "sms", value: "+15125550100", enabled: true },
        { channel: "push", value: "device-1", enabled: true },
      ],
      consentExpiresAt: {},
      ...o.recipient,
    },
    config,
    history: { category: [], rule: [], agent: [], marketingTexts: [], ...o.history },
    fatigue: o.fatigue ?? null,
    render: o.render ?? (() => ({ ok: true, content: { title: "Hello" } })),
    ...(o.requiresApproval ? { requiresApproval: o.requiresApproval } : {}),
  };
}

export function makeDraft(ctx: PolicyContext<unknown>, patch: Partial<PolicyDraft> = {}): PolicyDraft {
  return {
    importance: ctx.message.importance,
    claimedImportance: ctx.message.importance,
    channels: [...ctx.message.channels],
    sendAt: ctx.now,
    content: null,
    fatigueAlways: null,
    fatigueIfQueued: null,
    ...patch,
  };
}

export function runStep(
  step: PolicyStep,
  o: ContextOverrides = {},
  draft: Partial<PolicyDraft> = {},
): Promise<StepOutcome> {
  const ctx = makeContext(o);
  return Promise.resolve(step.run(ctx as PolicyContext, makeDraft(ctx as PolicyContext, draft)));
}

export const hours = (n: number) => n * 3_600_000;
export const at = (base: Date, offsetMs: number) => new Date(base.getTime() + offsetMs);
