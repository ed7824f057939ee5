// A real database and Redis prefix per test file, events going through accept + ingest, and a
// clock the test moves. Only what a test is about is given; the rest has quiet defaults.
import { parseConfig, type SvcConfig } from "@svc/config";
import { createQueues } from "@svc/queue";
import { Prisma, type PrismaClient } from "@svc/store";
import { createTestDatabase, testRedisPrefix, type TestRedisPrefix } from "@svc/testkit";
import { acceptEvent } from "../../events/accept-event";
import { ingestEvent } from "../../ingest/ingest-event";
import { closeDigest } from "../close-digest";

export const NOW = new Date("2024-01-15T12:00:00Z"); // Monday noon UTC, outside default quiet hours

/** Moves 1 ms per reading (events get distinct, ordered times); `set` jumps. */
export class TestClock {
  private t: number;
  constructor(start = NOW) {
    this.t = start.getTime();
  }
  now = (): Date => new Date(this.t++);
  set(at: Date | string): void {
    this.t = new Date(at).getTime();
  }
}

export function digestConfig(
  over: Record<string, unknown> = {},
  env: Record<string, string> = {},
): SvcConfig {
  return parseConfig(
    { channels: { email: { provider: "console" }, sms: { provider: "console" } }, ...over },
    env,
  );
}

export async function startDigestWorld(name: string, config = digestConfig()) {
  const db = await createTestDatabase(name, { poolMax: 20 });
  const redis: TestRedisPrefix = testRedisPrefix(name);
  const queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  const clock = new TestClock();
  const prisma = db.prisma;
  return {
    db,
    prisma,
    queues,
    config,
    clock,
    async event(eventName: string, recipient: string, data: Record<string, unknown> = {}) {
      const accepted = await acceptEvent(
        { prisma, queues, config, logger: { warn: () => undefined }, now: clock.now },
        { keyId: "key_backend", keyName: "backend", scopes: ["admin"], agentKey: null },
        { name: eventName, recipient, data },
      );
      const result = await ingestEvent({ prisma, config, now: clock.now }, accepted.event.id);
      if (result.status !== "processed") throw new Error(`event not processed: ${JSON.stringify(result)}`);
      return accepted.event.id;
    },
    closeDigest: (digestId: string, withConfig: SvcConfig = config) =>
      closeDigest({ prisma, config: withConfig, now: clock.now }, digestId),
    async stop() {
      await queues.close();
      await redis.cleanup();
      await db.drop();
    },
  };
}

export type World = Awaited<ReturnType<typeof startDigestWorld>>;

export interface DigestRuleFields {
  key: string;
  event: string;
  template: string;
  category?: string;
  channels?: string[];
  importance?: "low" | "normal" | "high" | "critical";
  digest?: Record<string, unknown>;
  cooldown_seconds?: number;
  expires_in_seconds?: number;
}

export const digestPolicy = (over: Record<string, unknown> = {}) => ({
  window: 3600,
  deliver_at: null,
  days: null,
  key: null,
  send_after: null,
  max_items: 50,
  summarize: false,
  summary_fields: [],
  ...over,
});

export async function makeDigestRule(prisma: PrismaClient, fields: DigestRuleFields) {
  const { digest, ...rest } = fields;
  return prisma.rule.create({
    data: {
      category: "transactional",
      channels: ["email"],
      ...rest,
      digest: (digest ?? digestPolicy()) as Prisma.InputJsonValue,
    },
  });
}

export async function makeTemplate(
  prisma: PrismaClient,
  key: string,
  locale: Record<string, unknown>,
  aiAttributes: string[] = [],
) {
  await prisma.template.create({
    data: { key, locales: { en: locale } as Prisma.InputJsonValue, ai_attributes: aiAttributes },
  });
}

export async function makeRecipient(
  prisma: PrismaClient,
  externalId: string,
  fields: { timezone?: string } = {},
) {
  return prisma.recipient.create({
    data: {
      id: `rcp_${externalId}`,
      external_id: externalId,
      ...fields,
      addresses: { create: [{ channel: "email", value: `${externalId}@example.com` }] },
    },
  });
}

export async function openDigestOf(prisma: PrismaClient, ruleKey: string) {
  return prisma.digest.findFirstOrThrow({ where: { rule_key: ruleKey }, orderBy: { created_at: "desc" } });
}
