import path from "node:path";
import { loadConfig, type Env, type SvcConfig } from "@svc/config";
import { createQueues, redisTopologyOf, type Queues } from "@svc/queue";
import { closeDatabase, createPrisma, pingDatabase, type RootDatabase } from "@svc/store";
import { apiAccess, type ApiAccess } from "./api-access";
import { CliError, type Targets } from "./cli-error";
import { EXIT } from "./exit-codes";
import { describeDatabase, describeRedis } from "./targets";

export interface Output {
  write(chunk: string): unknown;
  /** True on a terminal: API commands print tables there, JSON otherwise (docs/svcctl.md). */
  isTTY?: boolean;
}

/** What the process hands the CLI; tests pass their own to run it in-process. */
export interface CliIO {
  env: Env;
  cwd: string;
  /** What `svcctl hook` reads a Claude Code payload from, and `svcctl mcp` its messages. */
  stdin?: NodeJS.ReadableStream;
  stdout: Output;
  stderr: Output;
  now?: () => Date;
  /** How long to wait for Redis before giving up with exit 5 (default 5000 ms). */
  redisTimeoutMs?: number;
  /**
   * Calls `listener` when the process is told to stop (SIGTERM, SIGINT) instead of dying at once;
   * returns the function that stops listening. `svcctl hook --ask` withdraws its request then.
   */
  onTerminate?: (listener: () => void) => () => void;
}

/** The options every command takes (before or after the command name). */
export interface GlobalOptions {
  config?: string;
  url?: string;
  key?: string;
}

// Resolved from this file, so the same path works from src (ts-node, jest) and from dist.
const REPO_ROOT = path.resolve(__dirname, "../../..");
export const MIGRATIONS_DIR = path.join(REPO_ROOT, "prisma", "migrations");
export const SCHEMA_PATH = path.join(REPO_ROOT, "prisma", "schema.prisma");

/**
 * One command run: configuration and clients are created on first use (so `--help` works with a
 * broken configuration and `keys list` never touches Redis) and closed by `close()`.
 */
export interface Session {
  readonly io: CliIO;
  readonly now: () => Date;
  out(line: string): void;
  err(line: string): void;
  config(): SvcConfig;
  /** A Prisma client whose database answered a first query. */
  prisma(): Promise<RootDatabase>;
  /** Producers whose Redis connection is ready. */
  queues(): Promise<Queues>;
  targets(): Targets;
  /** The HTTP API through the typed client (--url/--key, else SVC_URL/SVC_API_KEY). */
  api(options?: { timeoutMs?: number }): ApiAccess;
  close(): Promise<void>;
}

export function createSession(io: CliIO, globals: () => GlobalOptions): Session {
  let config: SvcConfig | undefined;
  let prisma: RootDatabase | undefined;
  let queues: Queues | undefined;
  const now = io.now ?? (() => new Date());

  const session: Session = {
    io,
    now,
    out: (line) => io.stdout.write(`${line}\n`),
    err: (line) => io.stderr.write(`${line}\n`),
    config() {
      config ??= loadConfig({ env: io.env, cwd: io.cwd, file: globals().config });
      return config;
    },
    async prisma() {
      if (!prisma) {
        const { database } = session.config();
        prisma = createPrisma({ databaseUrl: database.url, poolMax: 2, poolMode: database.pool_mode });
        await pingDatabase(prisma);
      }
      return prisma;
    },
    async queues() {
      if (!queues) {
        const { redis, worker } = session.config();
        queues = createQueues({
          redis: redisTopologyOf(redis),
          prefix: redis.prefix,
          maxAttempts: worker.max_attempts,
        });
        await queues.ready(io.redisTimeoutMs ?? 5_000).catch((error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          throw new CliError(EXIT.unavailable, `cannot reach Redis at ${describeRedis(redis)} (${reason})`);
        });
      }
      return queues;
    },
    targets() {
      if (!config) return {};
      return { database: describeDatabase(config.database.url), redis: describeRedis(config.redis) };
    },
    api(options) {
      const { url, key } = globals();
      return apiAccess(io.env, { url, key }, options);
    },
    async close() {
      await Promise.allSettled([prisma && closeDatabase(prisma), queues?.close()]);
    },
  };
  return session;
}
