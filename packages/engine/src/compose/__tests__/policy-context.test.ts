import { parseConfig } from "@svc/config";
import type {
  AgentRow,
  CategoryRow,
  FatigueStateRow,
  RecipientWithPolicyRows,
  TemplateRow,
} from "@svc/store";
import { ComposeReferenceError } from "../compose-errors";
import type { ComposeRequest } from "../compose-types";
import type { CompositionRows } from "../composition-rows";
import { policyContextOf, type PolicyContextInput } from "../policy-context";

// Rows → PolicyContext without a database: every field the pipeline reads comes from the rows,
// the request and the configuration as docs/policy.md describes.

const NOW = new Date("2026-03-02T10:00:00Z");
const config = parseConfig({
  channels: { email: { provider: "console" }, sms: { provider: "console" } },
  policy: { quiet_hours: { start: "21:00", end: "07:00" }, default_timezone: "Europe/Berlin" },
  compliance: { us_texting_rules: true, sms_channels: ["sms"], unknown_state: "federal" },
});

const recipient: RecipientWithPolicyRows = {
  id: "rcp_1",
  external_id: "ada",
  locale: "de-AT",
  timezone: "America/New_York",
  region: "US-FL",
  attributes: { plan: "pro" },
  quiet_hours: { start: "23:00", end: "06:00" },
  unsubscribed_categories: ["news"],
  muted_channels: ["sms"],
  created_at: NOW,
  updated_at: NOW,
  addresses: [
    {
      recipient_id: "rcp_1",
      channel: "email",
      value: "ada@example.com",
      enabled: true,
      e164: null,
      created_at: NOW,
      updated_at: NOW,
    },
    {
      recipient_id: "rcp_1",
      channel: "sms",
      value: "+13055550100",
      enabled: false,
      e164: "+13055550100",
      created_at: NOW,
      updated_at: NOW,
    },
  ],
  consents: [
    {
      recipient_id: "rcp_1",
      category: "marketing",
      entry_id: "led_1",
      expires_at: new Date("2026-04-01T00:00:00Z"),
      recorded_at: NOW,
    },
    { recipient_id: "rcp_1", category: "offers", entry_id: "led_2", expires_at: null, recorded_at: NOW },
  ],
};

const category: CategoryRow = {
  key: "marketing",
  description: "",
  frequency_caps: [{ period: 86_400, limit: 2 }],
  respect_quiet_hours: true,
  allow_unsubscribe: true,
  marketing: true,
  fatigue: { after: 3, pause: 7200 },
  builtin: true,
  created_at: NOW,
  updated_at: NOW,
};

const template: TemplateRow = {
  key: "promo",
  default_locale: "en",
  locales: {
    en: { title: "Hi {{ recipient.attributes.plan }}", body: "{{ data.offer }} from {{ event.name }}" },
  },
  ai_attributes: [],
  created_at: NOW,
  updated_at: NOW,
};

const agent: AgentRow = {
  key: "bot",
  name: "Bot",
  description: "",
  categories: null,
  frequency_caps: [{ period: 3600, limit: 1 }],
  max_importance: "normal",
  approval: { "==": [{ var: "data.offer" }, "big"] },
  approval_ttl_seconds: 600,
  reviewers: [],
  enabled: true,
  deleted_at: null,
  created_at: NOW,
  updated_at: NOW,
};

const fatigue: FatigueStateRow = {
  recipient_id: "rcp_1",
  category: "marketing",
  sent_since_engagement: 2,
  paused_until: null,
  probe_message_id: "msg_probe",
  probe_sent_at: new Date("2026-03-01T00:00:00Z"),
  updated_at: NOW,
};

const request: ComposeRequest = {
  recipientId: "rcp_1",
  template: "promo",
  category: "marketing",
  channels: ["sms", "email"],
  importance: "high",
  data: { offer: "small" },
  sender: "bot",
  agentKey: "bot",
  apiKeyId: "key_1",
  rule: { key: "promo-rule", delaySeconds: 60, cooldownSeconds: 3600, expiresInSeconds: 7200 },
  event: { id: "evt_1", name: "cart.left", created_at: new Date("2026-03-02T09:00:00Z") },
  dedupKey: "evt:evt_1:promo-rule",
  expiresAt: null,
};

const rows: CompositionRows = { recipient, category, template, agent, fatigue };
const history = { category: [NOW], rule: [], agent: [], marketingTexts: [] };

const input = (over: Partial<PolicyContextInput> = {}): PolicyContextInput => ({
  config,
  now: NOW,
  messageId: "msg_new",
  request,
  rows,
  history,
  duplicateOf: null,
  ...over,
});

test("every field the pipeline reads comes from the rows, the request and the configuration", () => {
  const { ctx } = policyContextOf(input());
  const { render: _render, requiresApproval: _approval, ...plain } = ctx;
  expect(plain).toEqual({
    now: NOW,
    message: {
      id: "msg_new",
      category: "marketing",
      importance: "high",
      channels: ["sms", "email"],
      dueAt: null,
      // The rule's expires_in counts from the event.
      expiresAt: new Date("2026-03-02T11:00:00Z"),
      rule: { key: "promo-rule", delaySeconds: 60, cooldownSeconds: 3600 },
      agent: {
        key: "bot",
        frequencyCaps: [{ limit: 1, periodSeconds: 3600 }],
        maxImportance: "normal",
        approvalTtlSeconds: 600,
      },
      duplicateOf: null,
      approved: false,
    },
    category: {
      key: "marketing",
      frequencyCaps: [{ limit: 2, periodSeconds: 86_400 }],
      respectQuietHours: true,
      allowUnsubscribe: true,
      marketing: true,
      fatigue: { after: 3, pauseSeconds: 7200 },
    },
    recipient: {
      timezone: "America/New_York",
      locale: "de-AT",
      region: "US-FL",
      quietHours: { start: "23:00", end: "06:00" },
      unsubscribedCategories: ["news"],
      mutedChannels: ["sms"],
      addresses: [
        { channel: "email", value: "ada@example.com", enabled: true },
        { channel: "sms", value: "+13055550100", enabled: false },
      ],
      // Only recorded opt-ins with an end date.
      consentExpiresAt: { marketing: new Date("2026-04-01T00:00:00Z") },
    },
    config: {
      channels: ["email", "sms"],
      inboxChannels: [],
      quietHours: { start: "21:00", end: "07:00" },
      defaultTimezone: "Europe/Berlin",
      compliance: { usTextingRules: true, smsChannels: ["sms"], unknownState: "federal" },
    },
    history,
    fatigue: {
      sentSinceEngagement: 2,
      pausedUntil: null,
      probeMessageId: "msg_probe",
      probeSentAt: new Date("2026-03-01T00:00:00Z"),
      probeEngaged: false,
    },
  });
});

test("an explicit expires_at wins over the rule's expires_in; without either there is none", () => {
  const explicit = new Date("2026-03-05T00:00:00Z");
  expect(
    policyContextOf(input({ request: { ...request, expiresAt: explicit } })).ctx.message.expiresAt,
  ).toEqual(explicit);
  const noRuleExpiry = { ...request, rule: { ...request.rule!, expiresInSeconds: null } };
  expect(policyContextOf(input({ request: noRuleExpiry })).ctx.message.expiresAt).toBeNull();
});

test("the agent's approval condition sees the message, the person and the data; an error holds", () => {
  const view = { category: "marketing", importance: "normal" as const, channels: ["email"] };
  expect(policyContextOf(input()).ctx.requiresApproval!(view)).toBe(false);
  const big = input({ request: { ...request, data: { offer: "big" } } });
  expect(policyContextOf(big).ctx.requiresApproval!(view)).toBe(true);
  const broken = input({ rows: { ...rows, agent: { ...agent, approval: { no_such_operator: [] } } } });
  expect(policyContextOf(broken).ctx.requiresApproval!(view)).toBe(true);
  const none = input({ rows: { ...rows, agent: { ...agent, approval: null } } });
  expect(policyContextOf(none).ctx.requiresApproval).toBeUndefined();
});

test("rendering uses the template, the person and the event", async () => {
  const { ctx } = policyContextOf(input());
  const rendered = await ctx.render({ locale: "en", channels: ["email"], importance: "normal", sendAt: NOW });
  expect(rendered).toEqual({
    ok: true,
    content: {
      title: "Hi pro",
      body: "small from cart.left",
      url: null,
      thread: null,
      locale: "en",
      channel: "email",
    },
  });
});

test("a content override replaces title and body but keeps the template's other fields", async () => {
  const override = { text: { title: "Summary", body: "3 updates" }, extra: { summary: true } };
  const { ctx } = policyContextOf(input({ request: { ...request, contentOverride: override } }));
  const rendered = await ctx.render({ locale: "en", channels: ["email"], importance: "normal", sendAt: NOW });
  expect(rendered).toEqual({
    ok: true,
    content: {
      title: "Summary",
      body: "3 updates",
      url: null,
      thread: null,
      locale: "en",
      channel: "email",
      summary: true,
    },
  });
});

test.each([
  ["recipient", { recipient: null }],
  ["category", { category: null }],
  ["agent", { agent: null }],
  ["agent", { agent: { ...agent, deleted_at: NOW } }],
] as const)("a missing %s is a ComposeReferenceError", (reference, missing) => {
  const call = () => policyContextOf(input({ rows: { ...rows, ...missing } }));
  expect(call).toThrow(ComposeReferenceError);
  expect(call).toThrow(expect.objectContaining({ reference }));
});
