import type { Server } from "node:http";
import path from "node:path";
import { assertSecrets, loadConfig, sessionDatabaseUrl, type SvcConfig } from "@svc/config";
import { closeRenderPools } from "@svc/engine";
import { createLogger, type Logger } from "@svc/log";
import { createNoticeBus, createQueues, createRedisClient, redisTopologyOf, type Queues } from "@svc/queue";
import { closeDatabase, createPrisma, migrate, type RootDatabase } from "@svc/store";
import { startMetricsListener, startWorkerProcess, type RunningWorkers } from "@svc/worker";
import { buildApi, shutdownApi } from "./build-api";
import { answerClientErrorsAsProblems } from "./http/client-errors";
import { loadOrCreateSecretKey } from "./secret-key-file";

const MIGRATIONS_DIR = path.resolve(__dirname, "../../../prisma/migrations");

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
  const prisma = createPrisma({ databaseUrl: config.database.url, poolMode: config.database.pool_mode });
  const topology = redisTopologyOf(config.redis);
  const redis = createRedisClient(topology, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: false,
    // A Redis that accepts connections but does not answer must not hold requests (rate limit).
    commandTimeout: 2_000,
  });
  redis.on("error", (error: Error) => logger.warn("redis connection error", { error: error.message }));
  const queues = createQueues({
    redis: topology,
    prefix: config.redis.prefix,
    maxAttempts: config.worker.max_attempts,
  });
  const notices = createNoticeBus({ redis: topology, prefix: config.redis.prefix, publisher: redis });

  const workers = config.worker.embedded
    ? await startEmbeddedWorkers(config, prisma, queues, logger, env)
    : null;
  // The embedded workers' (and this API's) metrics on a private address too, when configured.
  const metricsPort = config.worker.metrics_port;
  const metricsListener =
    workers && metricsPort !== null
      ? await startMetricsListener({ host: config.worker.metrics_host, port: metricsPort, queues, logger })
      : null;
  const app = buildApi({
    config,
    logger,
    prisma,
    redis,
    queues,
    notices,
    migrationsDir: MIGRATIONS_DIR,
    env,
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.api.port, config.api.host, () => resolve(s));
    s.once("error", reject);
  });
  // Node's own parser errors (431 for a 100 kB URL, 400 for garbage) as problem+json too.
  answerClientErrorsAsProblems(server);
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
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await shutdownApi(app); // open inbox streams end, their clients reconnect elsewhere
        await closed;
        await metricsListener?.close();
        await workers?.close();
        await closeRenderPools();
        await queues.close();
        await notices.close();
        redis.disconnect();
        await closeDatabase(prisma);
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
      databaseUrl: sessionDatabaseUrl(config),
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
  prisma: RootDatabase,
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
