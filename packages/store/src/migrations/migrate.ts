import { randomUUID } from "node:crypto";
import type { ClientBase } from "pg";
import { withClient } from "../one-shot-client";
import { databaseNameOf, ensureDatabase } from "./database-url";
import { MigrationError } from "./migration-error";
import { readMigrationFiles, type MigrationFile } from "./migration-files";
import { CREATE_MIGRATIONS_TABLE, readMigrationRows } from "./migrations-table";
import { planMigrations } from "./plan-migrations";

/** The advisory lock `prisma migrate deploy` holds, so our runner and Prisma's exclude each other. */
export const MIGRATION_LOCK_ID = 72707369;

export type MigrationLog = (message: string, meta?: Record<string, unknown>) => void;

export interface MigrateOptions {
  databaseUrl: string;
  migrationsDir: string;
  /** Create the URL's database first when it is missing (default false). */
  createDatabase?: boolean;
  log?: MigrationLog;
  /** How long to wait for another migrator's lock before giving up (default 60 s). */
  lockTimeoutMs?: number;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: number;
}

/** Applies pending migrations, each in its own transaction, while holding Prisma's migration lock. */
export async function migrate(options: MigrateOptions): Promise<MigrateResult> {
  const log = options.log ?? (() => {});
  if (options.createDatabase && (await ensureDatabase(options.databaseUrl))) {
    log("created database", { database: databaseNameOf(options.databaseUrl) });
  }
  const files = await readMigrationFiles(options.migrationsDir);
  return withClient(options.databaseUrl, async (client) => {
    await acquireMigrationLock(client, options.lockTimeoutMs ?? 60_000);
    try {
      await client.query(CREATE_MIGRATIONS_TABLE);
      // Read under the lock: a concurrent migrator may have just applied what we were about to.
      const plan = planMigrations(files, await readMigrationRows(client));
      if (plan.unknownApplied.length > 0) {
        log("database has migrations this build does not know", { migrations: plan.unknownApplied });
      }
      const applied: string[] = [];
      for (const file of plan.pending) {
        await applyMigration(client, file);
        log("applied migration", { migration: file.name });
        applied.push(file.name);
      }
      return { applied, alreadyApplied: plan.alreadyApplied };
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_ID})`);
    }
  });
}

async function acquireMigrationLock(client: ClientBase, timeoutMs: number): Promise<void> {
  // lock_timeout bounds advisory lock waits too; reset it so migrations themselves are not limited.
  await client.query(`SET lock_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
  await client.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_ID})`);
  await client.query("SET lock_timeout = 0");
}

// The history row is written in the same transaction, so a failure leaves neither schema nor record behind.
async function applyMigration(client: ClientBase, file: MigrationFile): Promise<void> {
  const id = randomUUID();
  await client.query("BEGIN");
  try {
    await client.query(
      "INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, clock_timestamp(), 0)",
      [id, file.checksum, file.name],
    );
    await client.query(file.sql);
    await client.query(
      "UPDATE _prisma_migrations SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1",
      [id],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    const detail = error instanceof Error ? error.message : String(error);
    throw new MigrationError("apply_failed", `Migration ${file.name} failed and was rolled back: ${detail}`, {
      cause: error,
    });
  }
}
