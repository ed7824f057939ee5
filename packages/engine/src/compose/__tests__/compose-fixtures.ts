// Factories for composition tests: real rows in a real database, only the fields a test is about.
import { parseConfig, type SvcConfig } from "@svc/config";
import { newId, type Importance } from "@svc/core";
import { $transaction, lockRecipient, Prisma, type MessageRow, type PrismaClient } from "@svc/store";
import { composeMessage } from "../compose-message";
import type { ComposeRequest, ComposeResult } from "../compose-types";

export const NOW = new Date("2024-01-15T12:00:00Z"); // Monday noon UTC, outside default quiet hours

export function testConfig(overrides: Record<string, unknown> = {}): SvcConfig {
  return parseConfig({
    channels: { email: { provider: "console" }, sms: { provider: "console" }, push: { provider: "console" } },
    ...overrides,
  });
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

export interface RecipientInput {
  external_id?: string;
  locale?: string | null;
  timezone?: string | null;
  region?: string | null;
  quiet_hours?: { start: string; end: string } | null;
  unsubscribed_categories?: string[];
  muted_channels?: string[];
  addresses?: { channel: string; value: string; enabled?: boolean }[];
}

export async function makeRecipient(prisma: PrismaClient, input: RecipientInput = {}) {
  const { addresses = [{ channel: "email", value: "a@example.com" }], quiet_hours, ...rest } = input;
  return prisma.recipient.create({
    data: {
      id: newId("recipient"),
      external_id: input.external_id ?? unique("person"),
      ...rest,
      quiet_hours: quiet_hours ?? Prisma.DbNull,
      addresses: {
        create: addresses.map((a) => ({ channel: a.channel, value: a.value, enabled: a.enabled ?? true })),
      },
    },
  });
}

export async function makeTemplate(
  prisma: PrismaClient,
  locales?: Record<string, unknown>,
  key = unique("tpl"),
) {
  return prisma.template.create({
    data: {
      key,
      locales: (locales ?? {
        en: { title: "Hi {{ recipient.external_id }}", body: "{{ data.msg }}" },
      }) as Prisma.InputJsonValue,
    },
  });
}

export async function makeCategory(
  prisma: PrismaClient,
  input: {
    frequency_caps?: { period: number; limit: number }[];
    fatigue?: { after: number; pause: number } | null;
  } = {},
) {
  return prisma.category.create({
    data: {
      key: unique("cat"),
      frequency_caps: (input.frequency_caps ?? []) as Prisma.InputJsonValue,
      fatigue: input.fatigue ? (input.fatigue as Prisma.InputJsonValue) : Prisma.DbNull,
    },
  });
}

export async function makeAgent(
  prisma: PrismaClient,
  input: {
    categories?: string[] | null;
    approval?: unknown;
    frequency_caps?: { period: number; limit: number }[];
  } = {},
) {
  return prisma.agent.create({
    data: {
      key: unique("agent"),
      name: "Helper",
      categories: input.categories ? (input.categories as Prisma.InputJsonValue) : Prisma.DbNull,
      approval: input.approval === undefined ? Prisma.DbNull : (input.approval as Prisma.InputJsonValue),
      ...(input.frequency_caps ? { frequency_caps: input.frequency_caps as Prisma.InputJsonValue } : {}),
    },
  });
}

/** An earlier message that may count towards limits. */
export async function seedMessage(
  prisma: PrismaClient,
  recipient: { id: string; external_id: string },
  fields: Partial<Pick<MessageRow, "status" | "category" | "rule" | "agent_key" | "send_at" | "channels">>,
) {
  return prisma.message.create({
    data: {
      id: newId("message"),
      status: fields.status ?? "sent",
      recipient_id: recipient.id,
      recipient_external_id: recipient.external_id,
      sender: fields.agent_key ?? "backend",
      agent_key: fields.agent_key ?? null,
      category: fields.category ?? "transactional",
      rule: fields.rule ?? null,
      importance: "normal",
      claimed_importance: "normal",
      channels: fields.channels ?? ["email"],
      send_at: fields.send_at ?? new Date(NOW.getTime() - 3_600_000),
      link_nonce: "n",
    },
  });
}

export function baseRequest(
  recipientId: string,
  template: string,
  overrides: Partial<ComposeRequest> = {},
): ComposeRequest {
  return {
    recipientId,
    template,
    category: "transactional",
    channels: ["email"],
    importance: "normal" as Importance,
    data: { msg: "hello" },
    sender: "backend",
    agentKey: null,
    apiKeyId: null,
    rule: null,
    event: null,
    dedupKey: null,
    expiresAt: null,
    ...overrides,
  };
}

/** What callers do: one transaction holding the recipient lock. */
export function compose(
  prisma: PrismaClient,
  request: ComposeRequest,
  options: { config?: SvcConfig; now?: Date } = {},
): Promise<ComposeResult> {
  const deps = { config: options.config ?? testConfig(), now: () => options.now ?? NOW };
  return $transaction(prisma, async (tx) => {
    await lockRecipient(tx, request.recipientId);
    return composeMessage(tx, deps, request);
  });
}
