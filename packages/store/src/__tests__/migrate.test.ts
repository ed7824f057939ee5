import { Client } from "pg";
import {
  MIGRATION_LOCK_ID,
  migrate,
  migrationChecksum,
  pendingMigrations,
  type MigrationError,
} from "../migrations";
import { dropDatabase, migrationsFixture, query, scratchDatabaseUrl, writeMigration } from "./scratch";

const INIT = `CREATE TABLE "things" ("id" TEXT NOT NULL, CONSTRAINT "things_pkey" PRIMARY KEY ("id"));\n`;
const SECOND = `ALTER TABLE "things" ADD COLUMN "label" TEXT;\nCREATE INDEX "things_label_idx" ON "things"("label");\n`;

describe("migrate", () => {
  const urls: string[] = [];
  const fixtures: { remove(): void }[] = [];
  const freshUrl = () => {
    const url = scratchDatabaseUrl("migrate");
    urls.push(url);
    return url;
  };
  const fixture = (migrations: Record<string, string>) => {
    const created = migrationsFixture(migrations);
    fixtures.push(created);
    return created.dir;
  };

  afterAll(async () => {
    for (const url of urls) await dropDatabase(url);
    for (const created of fixtures) created.remove();
  });

  it("creates the database, applies every migration and records them the way Prisma does", async () => {
    const databaseUrl = freshUrl();
    const dir = fixture({ "20250101000000_init": INIT, "20250102000000_label": SECOND });
    const messages: string[] = [];

    const result = await migrate({
      databaseUrl,
      migrationsDir: dir,
      createDatabase: true,
      log: (m) => messages.push(m),
    });

    expect(result).toEqual({ applied: ["20250101000000_init", "20250102000000_label"], alreadyApplied: 0 });
    expect(messages).toEqual(["created database", "applied migration", "applied migration"]);
    const rows = await query(
      databaseUrl,
      `SELECT migration_name, checksum, applied_steps_count, finished_at IS NOT NULL AS finished,
              rolled_back_at, logs, length(id) AS id_length
         FROM _prisma_migrations ORDER BY migration_name`,
    );
    expect(rows).toEqual([
      {
        migration_name: "20250101000000_init",
        checksum: migrationChecksum(INIT),
        applied_steps_count: 1,
        finished: true,
        rolled_back_at: null,
        logs: null,
        id_length: 36,
      },
      {
        migration_name: "20250102000000_label",
        checksum: migrationChecksum(SECOND),
        applied_steps_count: 1,
        finished: true,
        rolled_back_at: null,
        logs: null,
        id_length: 36,
      },
    ]);
    expect(
      await query(
        databaseUrl,
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'things' ORDER BY 1`,
      ),
    ).toEqual([{ column_name: "id" }, { column_name: "label" }]);
  });

  it("creates _prisma_migrations with Prisma's exact columns", async () => {
    const databaseUrl = freshUrl();
    await migrate({ databaseUrl, migrationsDir: fixture({}), createDatabase: true });
    const columns = await query(
      databaseUrl,
      `SELECT column_name, data_type, character_maximum_length AS length, is_nullable, column_default
         FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns).toEqual([
      {
        column_name: "id",
        data_type: "character varying",
        length: 36,
        is_nullable: "NO",
        column_default: null,
      },
      {
        column_name: "checksum",
        data_type: "character varying",
        length: 64,
        is_nullable: "NO",
        column_default: null,
      },
      {
        column_name: "finished_at",
        data_type: "timestamp with time zone",
        length: null,
        is_nullable: "YES",
        column_default: null,
      },
      {
        column_name: "migration_name",
        data_type: "character varying",
        length: 255,
        is_nullable: "NO",
        column_default: null,
      },
      { column_name: "logs", data_type: "text", length: null, is_nullable: "YES", column_default: null },
      {
        column_name: "rolled_back_at",
        data_type: "timestamp with time zone",
        length: null,
        is_nullable: "YES",
        column_default: null,
      },
      {
        column_name: "started_at",
        data_type: "timestamp with time zone",
        length: null,
        is_nullable: "NO",
        column_default: "now()",
      },
      {
        column_name: "applied_steps_count",
        data_type: "integer",
        length: null,
        is_nullable: "NO",
        column_default: "0",
      },
    ]);
  });

  it("applies nothing when run again, and only the new migration after one is added", async () => {
    const databaseUrl = freshUrl();
    const dir = fixture({ "20250101000000_init": INIT });
    await migrate({ databaseUrl, migrationsDir: dir, createDatabase: true });

    expect(await migrate({ databaseUrl, migrationsDir: dir })).toEqual({ applied: [], alreadyApplied: 1 });
    expect(await pendingMigrations({ databaseUrl, migrationsDir: dir })).toEqual([]);

    writeMigration(dir, "20250102000000_label", SECOND);
    expect(await pendingMigrations({ databaseUrl, migrationsDir: dir })).toEqual(["20250102000000_label"]);
    expect(await migrate({ databaseUrl, migrationsDir: dir })).toEqual({
      applied: ["20250102000000_label"],
      alreadyApplied: 1,
    });
    expect(await query(databaseUrl, "SELECT count(*)::int AS n FROM _prisma_migrations")).toEqual([{ n: 2 }]);
  });

  it("refuses to run when an applied migration's file changed", async () => {
    const databaseUrl = freshUrl();
    const dir = fixture({ "20250101000000_init": INIT });
    await migrate({ databaseUrl, migrationsDir: dir, createDatabase: true });
    writeMigration(dir, "20250101000000_init", INIT + "-- edited\n");
    writeMigration(dir, "20250102000000_label", SECOND);

    const error = (await migrate({ databaseUrl, migrationsDir: dir }).catch(
      (e: unknown) => e,
    )) as MigrationError;

    expect(error.code).toBe("checksum_mismatch");
    expect(error.message).toContain("20250101000000_init");
    expect(await query(databaseUrl, "SELECT count(*)::int AS n FROM _prisma_migrations")).toEqual([{ n: 1 }]);
  });

  it("refuses to run while a failed migration is recorded", async () => {
    const databaseUrl = freshUrl();
    const dir = fixture({ "20250101000000_init": INIT });
    await migrate({ databaseUrl, migrationsDir: dir, createDatabase: true });
    // What `prisma migrate deploy` leaves behind after a failure: started, never finished.
    await query(
      databaseUrl,
      "INSERT INTO _prisma_migrations (id, checksum, migration_name, logs) VALUES ('0b5d6f8e-0000-4000-8000-000000000000', $1, '20250102000000_label', 'boom')",
      [migrationChecksum(SECOND)],
    );
    writeMigration(dir, "20250102000000_label", SECOND);

    const error = (await migrate({ databaseUrl, migrationsDir: dir }).catch(
      (e: unknown) => e,
    )) as MigrationError;

    expect(error.code).toBe("failed_migration");
    expect(error.message).toContain("Migration 20250102000000_label started at");
    expect(await pendingMigrations({ databaseUrl, migrationsDir: dir })).toEqual(["20250102000000_label"]);
  });

  it("rolls back a failing migration completely and records nothing for it", async () => {
    const databaseUrl = freshUrl();
    const dir = fixture({
      "20250101000000_init": INIT,
      "20250102000000_broken": `CREATE TABLE "half" ("id" TEXT);\nSELECT * FROM "no_such_table";\n`,
    });

    const error = (await migrate({ databaseUrl, migrationsDir: dir, createDatabase: true }).catch(
      (e: unknown) => e,
    )) as MigrationError;

    expect(error.code).toBe("apply_failed");
    expect(error.message).toBe(
      'Migration 20250102000000_broken failed and was rolled back: relation "no_such_table" does not exist',
    );
    expect(await query(databaseUrl, "SELECT migration_name FROM _prisma_migrations")).toEqual([
      { migration_name: "20250101000000_init" },
    ]);
    expect(await query(databaseUrl, "SELECT to_regclass('half') AS half")).toEqual([{ half: null }]);
  });

  it("applies each migration once when two runners start together", async () => {
    const databaseUrl = freshUrl();
    const dir = fixture({ "20250101000000_init": INIT, "20250102000000_label": SECOND });

    const results = await Promise.all([
      migrate({ databaseUrl, migrationsDir: dir, createDatabase: true }),
      migrate({ databaseUrl, migrationsDir: dir, createDatabase: true }),
    ]);

    const applied = results.map((result) => result.applied.length).sort();
    expect(applied).toEqual([0, 2]);
    expect(results.map((result) => result.alreadyApplied).sort()).toEqual([0, 2]);
    expect(await query(databaseUrl, "SELECT count(*)::int AS n FROM _prisma_migrations")).toEqual([{ n: 2 }]);
  });

  it("waits for the lock Prisma's migrate deploy holds", async () => {
    const databaseUrl = freshUrl();
    const dir = fixture({ "20250101000000_init": INIT });
    await migrate({ databaseUrl, migrationsDir: fixture({}), createDatabase: true });
    const holder = new Client({ connectionString: databaseUrl });
    await holder.connect();
    await holder.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK_ID})`);

    const error = (await migrate({ databaseUrl, migrationsDir: dir, lockTimeoutMs: 200 }).catch(
      (e: unknown) => e,
    )) as { code: string };
    expect(error.code).toBe("55P03"); // lock_not_available

    const running = migrate({ databaseUrl, migrationsDir: dir });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await pendingMigrations({ databaseUrl, migrationsDir: dir })).toEqual(["20250101000000_init"]);
    await holder.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_ID})`);
    await holder.end();
    expect(await running).toEqual({ applied: ["20250101000000_init"], alreadyApplied: 0 });
  });

  it("fails when the database is missing and createDatabase is off", async () => {
    const databaseUrl = freshUrl();
    const error = (await migrate({ databaseUrl, migrationsDir: fixture({}) }).catch((e: unknown) => e)) as {
      code: string;
    };
    expect(error.code).toBe("3D000"); // invalid_catalog_name
  });

  it("tolerates concurrent creators of the same database", async () => {
    const databaseUrl = freshUrl();
    const dir = fixture({ "20250101000000_init": INIT });
    const runs = await Promise.all(
      [1, 2, 3].map(() => migrate({ databaseUrl, migrationsDir: dir, createDatabase: true })),
    );
    expect(runs.flatMap((run) => run.applied)).toEqual(["20250101000000_init"]);
  });
});
