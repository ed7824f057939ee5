// Factories for ingest tests: real rows in a real database; only what a test is about is given.
import { parseConfig, type SvcConfig } from "@svc/config";
import type { Principal } from "@svc/core";
import { Prisma, type PrismaClient } from "@svc/store";
import { acceptEvent, type AcceptEventDeps } from "../../events/accept-event";
import type { EventInput } from "../../events/event-input";
import { createQueues, type Queues } from "@svc/queue";
import { createTestDatabase, testRedisPrefix, type TestDatabase, type TestRedisPrefix } from "@svc/testkit";
import type { IngestDeps } from "../ingest-types";

// One digest policy for every engine test (a rule's `digest` column with quiet defaults).
export { digestPolicy } from "../../digests/__tests__/digest-fixtures";

export const NOW = new Date("2024-01-15T12:00:00Z"); // Monday noon UTC, outside default quiet hours

export function ingestConfig(): SvcConfig {
  return parseConfig({ channels: { email: { provider: "console" }, sms: { provider: "console" } } });
}

export const BACKEND: Principal = {
  keyId: "key_backend",
  keyName: "backend",
  scopes: ["admin"],
  agentKey: null,
};
export const agentPrincipal = (agentKey: string): Principal => ({
  keyId: `key_${agentKey}`,
  keyName: agentKey,
  scopes: ["events:write", "messages:read"],
  agentKey,
});

/** A clock that moves 1 ms per call, so events get distinct, ordered times. */
export function tickingClock(start = NOW): () => Date {
  let t = start.getTime();
  return () => new Date(t++);
}

export async function makeTemplate(prisma: PrismaClient, key: string) {
  await prisma.template.create({
    data: {
      key,
      locales: { en: { title: "{{ event.name }}", body: "Hello {{ data.msg }}" } } as Prisma.InputJsonValue,
    },
  });
}

export interface RuleFields {
  key: string;
  event: string;
  template?: string;
  category?: string;
  channels?: string[];
  priority?: number;
  stop_processing?: boolean;
  rollout_percent?: number;
  condition?: unknown;
  digest?: Record<string, unknown>;
  enabled?: boolean;
}

export async function makeRule(prisma: PrismaClient, fields: RuleFields) {
  const { condition, digest, ...rest } = fields;
  await prisma.rule.create({
    data: {
      template: "tpl",
      category: "transactional",
      channels: ["email"],
      ...rest,
      condition: condition === undefined ? Prisma.DbNull : (condition as Prisma.InputJsonValue),
      digest: digest === undefined ? Prisma.DbNull : (digest as Prisma.InputJsonValue),
    },
  });
}

export async function makeRecipient(
  prisma: PrismaClient,
  externalId: string,
  addresses = [{ channel: "email", value: `${externalId}@example.com` }],
) {
  return prisma.recipient.create({
    data: { id: `rcp_${externalId}`, external_id: externalId, addresses: { create: addresses } },
  });
}

export function postEvent(deps: AcceptEventDeps, input: EventInput, principal: Principal = BACKEND) {
  return acceptEvent(deps, principal, input).then((accepted) => accepted.event.id);
}

export async function outcomesOf(prisma: PrismaClient, eventId: string) {
  const rows = await prisma.eventOutcome.findMany({
    where: { event_id: eventId },
    orderBy: { position: "asc" },
  });
  return rows.map(({ rule_key, matched, reason, status, message_id, digest_id }) => ({
    rule: rule_key,
    matched,
    reason,
    status,
    message: message_id !== null,
    digest: digest_id !== null,
  }));
}

export interface IngestTestEnv {
  db: TestDatabase;
  redis: TestRedisPrefix;
  queues: Queues;
  /** Ingest's dependencies (with the queues, for the job handlers and follow-ups). */
  deps: IngestDeps & { queues: Queues };
  /** acceptEvent's dependencies, to post events the way the API does. */
  accept: AcceptEventDeps;
  close(): Promise<void>;
}

/** One database, one Redis prefix and a ticking clock per test file. */
export async function startIngestEnv(
  name: string,
  options: { poolMax?: number } = {},
): Promise<IngestTestEnv> {
  const db = await createTestDatabase(name, options);
  const redis = testRedisPrefix(name);
  const queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  const now = tickingClock();
  return {
    db,
    redis,
    queues,
    deps: { prisma: db.prisma, config: ingestConfig(), now, queues },
    accept: { prisma: db.prisma, queues, config: ingestConfig(), logger: { warn: () => undefined }, now },
    async close() {
      await queues.close();
      await redis.cleanup();
      await db.drop();
    },
  };
}
