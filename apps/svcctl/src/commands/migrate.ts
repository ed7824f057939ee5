import path from "node:path";
import { Command } from "commander";
import { sessionDatabaseUrl } from "@svc/config";
import { checkDrift, databaseNameOf, migrate, pendingMigrations, readMigrationFiles } from "@svc/store";
import { CliError, asDatabaseError } from "../cli-error";
import { EXIT } from "../exit-codes";
import { withExample } from "../help-text";
import { MIGRATIONS_DIR, SCHEMA_PATH, type Session } from "../session";

export interface MigrationPaths {
  migrationsDir: string;
  schemaPath: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function migrateCommand(
  parent: Command,
  s: Session,
  paths: MigrationPaths = { migrationsDir: MIGRATIONS_DIR, schemaPath: SCHEMA_PATH },
): Command {
  const command = parent
    .command("migrate")
    .description("apply pending database migrations, creating the database when it is missing")
    .option(
      "--check",
      `change nothing: exit 1 when migrations are pending or the database differs from ${path.basename(paths.schemaPath)}`,
    )
    .action(async (options: { check?: boolean }) => {
      // Migrations need a session of their own: the direct URL behind a pooler (docs/scaling.md).
      const databaseUrl = sessionDatabaseUrl(s.config());
      try {
        if (options.check) await check(s, databaseUrl, paths);
        else await apply(s, databaseUrl, paths);
      } catch (error) {
        throw asDatabaseError(error, s.targets());
      }
    });
  return withExample(command, "$ svcctl migrate --check || svcctl migrate");
}

async function apply(s: Session, databaseUrl: string, paths: MigrationPaths): Promise<void> {
  const result = await migrate({
    databaseUrl,
    migrationsDir: paths.migrationsDir,
    createDatabase: true,
    log: (message, meta) => {
      if (message === "created database") s.out(`created database ${String(meta?.database)}`);
      else if (message === "applied migration") s.out(`applied ${String(meta?.migration)}`);
      else
        s.err(
          `warning: ${message}${meta?.migrations ? `: ${(meta.migrations as string[]).join(", ")}` : ""}`,
        );
    },
  });
  if (result.applied.length === 0) {
    s.out(`nothing to apply: ${plural(result.alreadyApplied, "migration")} already applied`);
  } else {
    s.out(
      `applied ${plural(result.applied.length, "migration")} (${result.alreadyApplied} already applied before)`,
    );
  }
}

async function check(s: Session, databaseUrl: string, paths: MigrationPaths): Promise<void> {
  const pending = await pendingOrAll(s, databaseUrl, paths.migrationsDir);
  if (pending.length > 0) {
    s.out(`pending migrations (${pending.length}):`);
    for (const name of pending) s.out(`  ${name}`);
    throw new CliError(EXIT.failure, `${plural(pending.length, "migration")} pending: run 'svcctl migrate'`);
  }
  const drift = await checkDrift({ databaseUrl, schemaPath: paths.schemaPath });
  if (!drift.ok) {
    s.out(`the database differs from ${path.basename(paths.schemaPath)} (${drift.differences.length}):`);
    for (const difference of drift.differences) s.out(`  - ${difference}`);
    throw new CliError(
      EXIT.failure,
      `database drifted from ${path.basename(paths.schemaPath)}: ${plural(drift.differences.length, "difference")}`,
    );
  }
  const total = (await readMigrationFiles(paths.migrationsDir)).length;
  s.out(
    `up to date: ${plural(total, "migration")} applied, the database matches ${path.basename(paths.schemaPath)}`,
  );
}

// A database that does not exist yet has every migration pending; the check reports that, not an error.
async function pendingOrAll(s: Session, databaseUrl: string, migrationsDir: string): Promise<string[]> {
  try {
    return await pendingMigrations({ databaseUrl, migrationsDir });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "3D000") throw error;
    s.out(`database ${databaseNameOf(databaseUrl)} does not exist yet`);
    return (await readMigrationFiles(migrationsDir)).map((file) => file.name);
  }
}
