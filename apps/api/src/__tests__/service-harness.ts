import { randomBytes } from "node:crypto";
import type { Express } from "express";
import request from "supertest";
import { parseConfig, type SvcConfig } from "@svc/config";
import type { Scope } from "@svc/core";
import { agentsResource, createApiKey } from "@svc/engine";
import { createLogCapture, createLogger, type LogCapture } from "@svc/log";
import {
  createNoticeBus,
  createQueues,
  createRedisClient,
  redisTopologyOf,
  type NoticeBus,
  type Queues,
  type RedisClient,
} from "@svc/queue";
import { createPrisma, type PrismaClient } from "@svc/store";
import { createTestDatabase, MIGRATIONS_DIR, serviceConnections, testRedisPrefix } from "@svc/testkit";
import { buildApi, shutdownApi } from "../build-api";

// The whole API over a real Postgres and Redis, one database and one key prefix per test file:
//   const h = await startHarness("recipients"); afterAll(() => h.close());
//   await h.as(h.adminKey).get("/v1/categories").expect(200);
// With SVC_TEST_FLEET=1 it runs on a Redis Cluster and through PgBouncer in transaction mode, as a
// fleet is configured (docs/development.md "Tests on a fleet's servers").

export interface HarnessOptions {
  /** Raw configuration merged over the defaults (database and Redis are set by the harness). */
  config?: Record<string, unknown>;
  /** Clock handed to the API; defaults to the real one. */
  now?: () => Date;
  /** SVC_SECRET_KEY for link tokens; a random one by default. */
  secretKey?: string;
  /** More environment: other `SVC_*` secrets, and variables named by channels' `*_env` settings. */
  env?: Record<string, string>;
  /** Another Redis than the shared one (an unreachable address, for outage tests). */
  redisUrl?: string;
}

export interface Harness {
  app: Express;
  config: SvcConfig;
  prisma: PrismaClient;
  redis: RedisClient;
  queues: Queues;
  notices: NoticeBus;
  /** Every log line the API wrote (a 500's stack is here). */
  logs: LogCapture;
  /** Secret of a key with `admin`. */
  adminKey: string;
  adminKeyId: string;
  /** A new key with these scopes, bound to `agent` when given (the agent is created if missing). */
  keyWith(scopes: Scope[], agent?: string): Promise<string>;
  /** Id of the key with this secret. */
  keyIdOf(secret: string): string;
  /** Redis keys matching `pattern`, from every primary of a cluster. */
  redisKeys(pattern: string): Promise<string[]>;
  /** A supertest agent that sends `Authorization: Bearer <key>` (default: the admin key). */
  as(key?: string): ReturnType<typeof request.agent>;
  close(): Promise<void>;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? merge(current, value) : value;
  }
  return out;
}

type Cleanup = () => Promise<unknown> | void;

export async function startHarness(name: string, options: HarnessOptions = {}): Promise<Harness> {
  const cleanups: Cleanup[] = [];
  const close = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    return await start(name, options, cleanups, close);
  } catch (error) {
    await close(); // a half-started harness must not keep jest alive
    throw error;
  }
}

async function start(
  name: string,
  options: HarnessOptions,
  cleanups: Cleanup[],
  close: () => Promise<void>,
): Promise<Harness> {
  const redisPrefix = testRedisPrefix(name);
  cleanups.push(() => redisPrefix.cleanup());
  const db = await createTestDatabase(name);
  cleanups.push(() => db.drop());
  const connections = options.redisUrl
    ? { database: { url: db.databaseUrl }, redis: { url: options.redisUrl, prefix: redisPrefix.prefix } }
    : serviceConnections(db.databaseUrl, { url: redisPrefix.redisUrl, prefix: redisPrefix.prefix });
  const config = parseConfig(
    merge(options.config ?? {}, connections),
    // Secrets come only from the environment (docs/configuration.md); a test key signs link tokens.
    { ...options.env, SVC_SECRET_KEY: options.secretKey ?? randomBytes(32).toString("base64url") },
  );
  // The API's own client, as the service makes it (through the pooler under the fleet switch).
  const prisma = createPrisma({ databaseUrl: config.database.url, poolMode: config.database.pool_mode });
  cleanups.push(() => prisma.$disconnect());
  const now = options.now ?? (() => new Date());
  // An unreachable Redis is given up at once (no reconnect timers left behind when the test ends).
  const topology = redisTopologyOf(config.redis);
  const redis = createRedisClient(topology, {
    maxRetriesPerRequest: 2,
    ...(options.redisUrl ? { enableOfflineQueue: false, retryStrategy: () => null } : {}),
  });
  redis.on("error", () => undefined);
  cleanups.push(() => redis.disconnect());
  const queues = createQueues({
    redis: topology,
    prefix: config.redis.prefix,
    maxAttempts: config.worker.max_attempts,
  });
  cleanups.push(() => queues.close());
  const notices = createNoticeBus({ redis: topology, prefix: config.redis.prefix, publisher: redis });
  cleanups.push(() => notices.close());
  const logs = createLogCapture();
  const logger = createLogger({ service: `api-test-${name}`, level: "info", stream: logs.stream });
  const app = buildApi({
    config,
    logger,
    prisma,
    redis,
    queues,
    notices,
    migrationsDir: MIGRATIONS_DIR,
    env: options.env,
    now,
    validateResponses: true,
  });
  cleanups.push(() => shutdownApi(app));

  const keyIds = new Map<string, string>();
  const newKey = async (scopes: Scope[], agent?: string) => {
    const created = await createApiKey(
      { prisma, now },
      { name: `test ${scopes.join(" ")}`, scopes, agent: agent ?? null },
    );
    keyIds.set(created.key, created.id);
    return created.key;
  };
  const adminKey = await newKey(["admin"]);

  return {
    app,
    config,
    prisma,
    redis,
    queues,
    notices,
    logs,
    adminKey,
    adminKeyId: keyIds.get(adminKey)!,
    async keyWith(scopes, agent) {
      if (agent && !(await prisma.agent.findUnique({ where: { key: agent } }))) {
        await agentsResource({ prisma, now }).create(agent, { name: agent }, now());
      }
      return newKey(scopes, agent);
    },
    keyIdOf(secret) {
      const id = keyIds.get(secret);
      if (!id) throw new Error("not a key made by this harness");
      return id;
    },
    async redisKeys(pattern) {
      const nodes = "nodes" in redis ? redis.nodes("master") : [redis];
      return (await Promise.all(nodes.map((node) => node.keys(pattern)))).flat();
    },
    as(key = adminKey) {
      return request.agent(app).set("Authorization", `Bearer ${key}`);
    },
    close,
  };
}
