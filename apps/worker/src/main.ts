import { parseArgs } from "node:util";
import { loadConfig, sessionDatabaseUrl } from "@svc/config";
import { closeRenderPools } from "@svc/engine";
import { createLogger } from "@svc/log";
import { createQueues, redisTopologyOf } from "@svc/queue";
import { closeDatabase, createPrisma, migrate } from "@svc/store";
import path from "node:path";
import { startMetricsListener } from "./metrics-listener";
import { exitGracefullyOnSignals } from "./shutdown";
import { parseQueueNames } from "./start-workers";
import { startWorkerProcess } from "./worker-process";

const MIGRATIONS_DIR = path.resolve(__dirname, "../../../prisma/migrations");

// `node apps/worker/dist/main.js [--queues ingest,policy] [--config svc.yaml]`: runs the chosen
// queues' processors (all by default) until SIGTERM/SIGINT.
export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { queues: { type: "string" }, config: { type: "string" } },
    strict: true,
  });
  const config = loadConfig({ env, cwd: process.cwd(), file: values.config });
  const logger = createLogger({ service: "worker", level: config.log.level });
  const queueNames = parseQueueNames(
    values.queues
      ?.split(",")
      .map((name) => name.trim())
      .filter(Boolean),
  );
  const queues = createQueues({
    redis: redisTopologyOf(config.redis),
    prefix: config.redis.prefix,
    maxAttempts: config.worker.max_attempts,
  });
  if (config.database.auto_migrate) {
    // Safe beside the API doing the same: the runner holds Prisma's advisory lock while applying.
    await migrate({
      databaseUrl: sessionDatabaseUrl(config),
      migrationsDir: MIGRATIONS_DIR,
      createDatabase: true,
    });
  }
  const prisma = createPrisma({ databaseUrl: config.database.url, poolMode: config.database.pool_mode });
  const deliverInline = queueNames.includes("ingest") && queueNames.includes("delivery");
  const now = () => new Date();
  const workers = startWorkerProcess({ queues, logger, prisma, config, now, env, deliverInline }, queueNames);
  const metricsPort = config.worker.metrics_port;
  const listener =
    metricsPort === null
      ? null
      : await startMetricsListener({ host: config.worker.metrics_host, port: metricsPort, queues, logger });
  exitGracefullyOnSignals({
    logger,
    close: async () => {
      await listener?.close();
      await workers.close();
      await closeRenderPools();
      await queues.close();
      await closeDatabase(prisma);
    },
  });
  await workers.scheduleSweeps();
}

if (require.main === module) {
  main(process.argv.slice(2), process.env).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
