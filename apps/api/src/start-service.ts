import type { Server } from "node:http";
import path from "node:path";
import { Redis } from "ioredis";
import { assertSecrets, loadConfig, type SvcConfig } from "@svc/config";
import { createLogger, type Logger } from "@svc/log";
import { createQueues, type Queues } from "@svc/queue";
import { createPrisma, migrate, type PrismaClient } from "@svc/store";
import { startMetricsListener, startWorkerProcess, type RunningWorkers } from "@svc/worker";
import { buildApi } from "./build-api";
import { loadOrCreateSecretKey } from "./secret-key-file";

export const MIGRATIONS_DIR = path.resolve(__dirname, "../../../prisma/migrations");

export interface RunningService {
  server: Server;
  config: SvcConfig;
  close(): Promise<void>;
}

/**
 * Starts the API (and, with `worker.embedded`, every worker in the same process): load and check the
 * configuration, apply migrations (creating the database), connect, listen.
 */
export async function startService({
  env,
  cwd,
}: {
  env: NodeJS.ProcessEnv;
  cwd: string;
}): Promise<RunningService> {
  const config = await prepareService({ env, cwd });
  const logger = createLogger({ service: "api", level: config.log.level });
  const prisma = createPrisma({ databaseUrl: config.database.url });
  const redis = new Redis(config.redis.url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: false,
    // A Redis that accepts connections but does not answer must not hold requests (rate limit).
    commandTimeout: 2_000,
    lazyConnect: false,
  });
  redis.on("error", (error) => logger.warn("redis connection error", { error: error.message }));
  const queues = createQueues({
    redisUrl: config.redis.url,
    prefix: config.redis.prefix,
    maxAttempts: config.worker.max_attempts,
  });

  const workers = config.worker.embedded
    ? await startEmbeddedWorkers(config, prisma, queues, logger, env)
    : null;
  // The embedded workers' (and this API's) metrics on a private address too, when configured.
  const metricsPort = config.worker.metrics_port;
  const metricsListener =
    workers && metricsPort !== null
      ? await startMetricsListener({ host: config.worker.metrics_host, port: metricsPort, queues, logger })
      : null;
  const app = buildApi({ config, logger, prisma, redis, queues, migrationsDir: MIGRATIONS_DIR, env });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.api.port, config.api.host, () => resolve(s));
    s.once("error", reject);
  });
  logger.info("api listening", {
    host: config.api.host,
    port: config.api.port,
    embedded_workers: workers?.queues ?? [],
  });

  let closing: Promise<void> | undefined;
  return {
    server,
    config,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await metricsListener?.close();
        await workers?.close();
        await queues.close();
        redis.disconnect();
        await prisma.$disconnect();
      })();
      return closing;
    },
  };
}

/**
 * What a start does once before serving: load and check the configuration, create the secret key
 * file of a single-host install when needed, apply migrations (creating the database). A
 * supervisor of several API processes runs it before forking them; each runs it again, finding
 * the key file and the migrations in place.
 */
export async function prepareService({
  env,
  cwd,
}: {
  env: NodeJS.ProcessEnv;
  cwd: string;
}): Promise<SvcConfig> {
  let config = loadConfig({ env, cwd });
  const logger = createLogger({ service: "api", level: config.log.level });
  if (!config.secrets.secretKey && config.worker.embedded) {
    const secret = loadOrCreateSecretKey(cwd);
    if (secret.created)
      logger.warn("SVC_SECRET_KEY is not set: created a secret key for this single-host install", {
        file: secret.file,
      });
    config = { ...config, secrets: { ...config.secrets, secretKey: secret.key } };
  }
  assertSecrets(config, env, { requireSecretKey: true });

  if (config.database.auto_migrate) {
    const result = await migrate({
      databaseUrl: config.database.url,
      migrationsDir: MIGRATIONS_DIR,
      createDatabase: true,
      log: (msg, meta) => logger.info(msg, meta),
    });
    logger.info("migrations checked", { applied: result.applied, already_applied: result.alreadyApplied });
  }
  return config;
}

async function startEmbeddedWorkers(
  config: SvcConfig,
  prisma: PrismaClient,
  queues: Queues,
  logger: Logger,
  env: NodeJS.ProcessEnv,
): Promise<RunningWorkers> {
  // Ingest and delivery run here together: due messages skip the delivery queue (docs/delivery.md).
  const now = () => new Date();
  const workers = startWorkerProcess({ queues, logger, prisma, config, now, env, deliverInline: true });
  await workers.scheduleSweeps();
  return workers;
}
