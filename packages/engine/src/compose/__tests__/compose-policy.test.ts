// Table-driven composition against a real database: each case builds its own person and history,
// composes once, and checks the exact status, reason and send time that were stored.
import type { MessageRow, PrismaClient } from "@svc/store";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import type { ComposeRequest } from "../compose-types";
import {
  baseRequest,
  compose,
  makeAgent,
  makeCategory,
  makeRecipient,
  makeTemplate,
  NOW,
  seedMessage,
  type RecipientInput,
} from "./compose-fixtures";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("compose_policy");
});
afterAll(() => db.drop());

const HOUR = 3_600_000;
const at = (iso: string) => new Date(iso);

interface Case {
  recipient?: RecipientInput;
  /** Runs before composing; returns request overrides (a category, an agent...). */
  setup?: (
    prisma: PrismaClient,
    r: { id: string; external_id: string },
  ) => Promise<Partial<ComposeRequest> | void>;
  request?: Partial<ComposeRequest>;
  now?: Date;
  expected: Partial<MessageRow>;
}

const RULE = { key: "welcome", delaySeconds: null, cooldownSeconds: 3600, expiresInSeconds: null };
const marketing = { category: "marketing" };

const cases: Record<string, Case> = {
  "marketing outside quiet hours is queued now": {
    request: marketing,
    expected: { status: "queued", status_reason: null, send_at: NOW },
  },
  "unsubscribed from marketing": {
    recipient: { unsubscribed_categories: ["marketing"] },
    request: marketing,
    expected: { status: "suppressed", status_reason: "unsubscribed", content: null },
  },
  "transactional ignores a stored opt-out": {
    recipient: { unsubscribed_categories: ["transactional"] },
    expected: { status: "queued", status_reason: null },
  },
  "no address on the planned channel": {
    recipient: { addresses: [] },
    expected: { status: "suppressed", status_reason: "no_reachable_channel", channels: ["email"] },
  },
  "disabled address only": {
    recipient: { addresses: [{ channel: "email", value: "a@example.com", enabled: false }] },
    expected: { status: "suppressed", status_reason: "no_reachable_channel" },
  },
  "channel muted by the person": {
    recipient: { muted_channels: ["email"] },
    expected: { status: "suppressed", status_reason: "no_reachable_channel" },
  },
  "channel not configured": {
    recipient: { addresses: [{ channel: "pigeon", value: "coop 7" }] },
    request: { channels: ["pigeon"] },
    expected: { status: "suppressed", status_reason: "no_reachable_channel" },
  },
  "unreachable channels are dropped, the rest keep their order": {
    recipient: {
      addresses: [
        { channel: "sms", value: "+4915100000" },
        { channel: "email", value: "a@b.c" },
      ],
    },
    request: { channels: ["push", "sms", "email"] },
    expected: { status: "queued", channels: ["sms", "email"] },
  },
  "quiet hours in the person's zone: moved to 08:00 Berlin": {
    recipient: { timezone: "Europe/Berlin" },
    request: marketing,
    now: at("2024-01-15T22:30:00Z"), // 23:30 in Berlin
    expected: { status: "queued", send_at: at("2024-01-16T07:00:00Z") },
  },
  "the person's equal start and end disable quiet hours": {
    recipient: { quiet_hours: { start: "00:00", end: "00:00" } },
    request: marketing,
    now: at("2024-01-15T23:00:00Z"),
    expected: { status: "queued", send_at: at("2024-01-15T23:00:00Z") },
  },
  "transactional ignores quiet hours": {
    now: at("2024-01-15T23:00:00Z"),
    expected: { status: "queued", send_at: at("2024-01-15T23:00:00Z") },
  },
  "critical marketing is not delayed by quiet hours": {
    request: { ...marketing, importance: "critical" },
    now: at("2024-01-15T23:00:00Z"),
    expected: { status: "queued", send_at: at("2024-01-15T23:00:00Z") },
  },
  "quiet hours push it past expires_at": {
    request: { ...marketing, expiresAt: at("2024-01-16T06:00:00Z") },
    now: at("2024-01-15T23:00:00Z"),
    expected: { status: "suppressed", status_reason: "expired", expires_at: at("2024-01-16T06:00:00Z") },
  },
  "a rule's expires_in counts from the event": {
    request: {
      ...marketing,
      rule: { ...RULE, cooldownSeconds: null, expiresInSeconds: 3600 },
      event: { id: "evt_1", name: "signup", created_at: at("2024-01-15T22:30:00Z") },
    },
    now: at("2024-01-15T23:00:00Z"),
    expected: {
      status: "suppressed",
      status_reason: "expired",
      expires_at: at("2024-01-15T23:30:00Z"),
      rule: "welcome",
      event_id: "evt_1",
    },
  },
  "a rule's delay moves send_at": {
    request: { rule: { ...RULE, delaySeconds: 600 } },
    expected: { status: "queued", send_at: new Date(NOW.getTime() + 600_000), rule: "welcome" },
  },
  "cooldown: the rule messaged this person 30 minutes ago": {
    setup: (p, r) =>
      seedMessage(p, r, {
        rule: "welcome",
        status: "sent",
        send_at: new Date(NOW.getTime() - HOUR / 2),
      }).then(() => undefined),
    request: { rule: RULE },
    expected: { status: "suppressed", status_reason: "cooldown" },
  },
  "cooldown is over after cooldown_seconds": {
    setup: (p, r) =>
      seedMessage(p, r, { rule: "welcome", status: "sent", send_at: new Date(NOW.getTime() - HOUR) }).then(
        () => undefined,
      ),
    request: { rule: RULE },
    expected: { status: "queued" },
  },
  "marketing cap: 2 per P1D used by a sent and a queued message": {
    setup: async (p, r) => {
      await seedMessage(p, r, {
        category: "marketing",
        status: "sent",
        send_at: new Date(NOW.getTime() - 5 * HOUR),
      });
      await seedMessage(p, r, {
        category: "marketing",
        status: "queued",
        send_at: new Date(NOW.getTime() + 5 * HOUR),
      });
    },
    request: marketing,
    expected: { status: "suppressed", status_reason: "frequency_cap: 2 per P1D", send_at: NOW },
  },
  "marketing cap ignores suppressed, cancelled and failed messages": {
    setup: async (p, r) => {
      for (const status of ["suppressed", "cancelled", "failed", "pending_approval"] as const)
        await seedMessage(p, r, { category: "marketing", status, send_at: new Date(NOW.getTime() - HOUR) });
    },
    request: marketing,
    expected: { status: "queued" },
  },
  "marketing weekly cap: 5 per P7D": {
    setup: async (p, r) => {
      for (let day = 1; day <= 5; day++)
        await seedMessage(p, r, {
          category: "marketing",
          send_at: new Date(NOW.getTime() - day * 24 * HOUR - HOUR),
        });
    },
    request: marketing,
    expected: { status: "suppressed", status_reason: "frequency_cap: 5 per P7D" },
  },
  "critical is exempt from caps": {
    setup: async (p, r) => {
      await seedMessage(p, r, { category: "marketing", send_at: new Date(NOW.getTime() - HOUR) });
      await seedMessage(p, r, { category: "marketing", send_at: new Date(NOW.getTime() - 2 * HOUR) });
    },
    request: { ...marketing, importance: "critical" },
    expected: { status: "queued", importance: "critical" },
  },
  "fatigue: the person ignored the last 2 messages of the category": {
    setup: async (p, r) => {
      const category = await makeCategory(p, { fatigue: { after: 2, pause: 86_400 } });
      await p.fatigueState.create({
        data: { recipient_id: r.id, category: category.key, sent_since_engagement: 2 },
      });
      return { category: category.key };
    },
    expected: { status: "suppressed", status_reason: "fatigue" },
  },
  "fatigue never pauses high importance": {
    setup: async (p, r) => {
      const category = await makeCategory(p, { fatigue: { after: 2, pause: 86_400 } });
      await p.fatigueState.create({
        data: { recipient_id: r.id, category: category.key, sent_since_engagement: 2 },
      });
      return { category: category.key, importance: "high" };
    },
    expected: { status: "queued" },
  },
  "missing template fails the message": {
    request: { template: "nope" },
    expected: { status: "failed", status_reason: "template_error: no template 'nope'", content: null },
  },
  "no usable locale": {
    recipient: { locale: "fr" },
    setup: async (p) => ({ template: (await makeTemplate(p, { de: { title: "Hallo", body: "x" } })).key }),
    expected: { status: "failed", status_reason: "template_error: no usable locale" },
  },
  "render error": {
    setup: async (p) => ({
      template: (await makeTemplate(p, { en: { title: "{{ data.x | shout }}", body: "x" } })).key,
    }),
    expected: {
      status: "failed",
      status_reason: "template_error: locales.en.title: line 1: unknown filter: shout",
    },
  },
  "an unsubscribe wins over a template error (policy order)": {
    recipient: { unsubscribed_categories: ["marketing"] },
    request: { ...marketing, template: "nope" },
    expected: { status: "suppressed", status_reason: "unsubscribed" },
  },
  "agent budget: 5 per P1D used, held messages count": {
    setup: async (p, r) => {
      const agent = await makeAgent(p);
      for (const status of ["sent", "queued", "pending_approval", "delivered", "sending"] as const)
        await seedMessage(p, r, { agent_key: agent.key, status, send_at: new Date(NOW.getTime() - HOUR) });
      return { agentKey: agent.key, sender: agent.key };
    },
    expected: { status: "suppressed", status_reason: "agent_budget: 5 per P1D" },
  },
  "agent budget applies to critical too": {
    setup: async (p, r) => {
      const agent = await makeAgent(p, { frequency_caps: [{ period: 3600, limit: 1 }] });
      await seedMessage(p, r, { agent_key: agent.key, send_at: new Date(NOW.getTime() - HOUR / 4) });
      return { agentKey: agent.key, sender: agent.key, importance: "critical" };
    },
    expected: { status: "suppressed", status_reason: "agent_budget: 1 per PT1H" },
  },
  "agent claim above max_importance is lowered, the claim is kept": {
    setup: async (p) => {
      const agent = await makeAgent(p);
      return { agentKey: agent.key, sender: agent.key, importance: "critical" };
    },
    expected: { status: "queued", importance: "high", claimed_importance: "critical" },
  },
  "agent approval condition over message, recipient and data holds the message": {
    recipient: { external_id: "approval-person" },
    setup: async (p) => {
      const agent = await makeAgent(p, {
        approval: {
          and: [
            { "==": [{ var: "data.msg" }, "hello"] },
            { "==": [{ var: "message.category" }, "transactional"] },
            { "==": [{ var: "recipient.external_id" }, "approval-person"] },
            { in: ["email", { var: "message.channels" }] },
          ],
        },
      });
      return { agentKey: agent.key, sender: agent.key };
    },
    expected: {
      status: "pending_approval",
      status_reason: null,
      approval_expires_at: new Date(NOW.getTime() + 86_400_000),
    },
  },
  "agent approval condition that does not hold": {
    setup: async (p) => {
      const agent = await makeAgent(p, { approval: { "==": [{ var: "data.msg" }, "risky"] } });
      return { agentKey: agent.key, sender: agent.key };
    },
    expected: { status: "queued", approval_expires_at: null },
  },
};

test.each(Object.entries(cases))("%s", async (_name, c) => {
  const recipient = await makeRecipient(db.prisma, c.recipient);
  const template = await makeTemplate(db.prisma);
  const extra = (await c.setup?.(db.prisma, recipient)) ?? {};
  const request = baseRequest(recipient.id, template.key, { ...c.request, ...extra });
  const { message } = await compose(db.prisma, request, { now: c.now ?? NOW });
  expect(message).toMatchObject(c.expected);
  expect(await db.prisma.message.findUnique({ where: { id: message.id } })).toEqual(message);
});
