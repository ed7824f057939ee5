import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { MIGRATIONS_DIR, reserveTestDatabase } from "@svc/testkit";
import { MIGRATIONS_DIR as CLI_MIGRATIONS_DIR, SCHEMA_PATH } from "../session";
import { svcctl } from "./harness";

// `svcctl migrate` on a database that does not exist yet, then against the migrated one.

const database = reserveTestDatabase("svcctl_migrate");
const { name, databaseUrl } = database;
const env = { DATABASE_URL: databaseUrl };
const MIGRATIONS = fs
  .readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

afterAll(() => database.drop());

async function sql(statement: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

describe("svcctl migrate", () => {
  it("reads the repository's migrations and schema, resolved from its own location", () => {
    expect(MIGRATIONS.length).toBeGreaterThan(0);
    expect(CLI_MIGRATIONS_DIR).toBe(MIGRATIONS_DIR);
    expect(SCHEMA_PATH).toBe(path.join(path.dirname(MIGRATIONS_DIR), "schema.prisma"));
  });

  it("--check on a database that does not exist: every migration pending, exit 1", async () => {
    expect(await svcctl(["migrate", "--check"], env)).toEqual({
      code: 1,
      stdout: [
        `database ${name} does not exist yet`,
        `pending migrations (${MIGRATIONS.length}):`,
        ...MIGRATIONS.map((migration) => `  ${migration}`),
        "",
      ].join("\n"),
      stderr: `error: ${MIGRATIONS.length} migrations pending: run 'svcctl migrate'\n`,
    });
  });

  it("creates the database and applies every migration, saying what it did", async () => {
    expect(await svcctl(["migrate"], env)).toEqual({
      code: 0,
      stdout: [
        `created database ${name}`,
        ...MIGRATIONS.map((migration) => `applied ${migration}`),
        `applied ${MIGRATIONS.length} migrations (0 already applied before)`,
        "",
      ].join("\n"),
      stderr: "",
    });
  });

  it("a second run has nothing to do", async () => {
    expect(await svcctl(["migrate"], env)).toEqual({
      code: 0,
      stdout: `nothing to apply: ${MIGRATIONS.length} migrations already applied\n`,
      stderr: "",
    });
  });

  it("--check passes on the migrated database", async () => {
    expect(await svcctl(["migrate", "--check"], env)).toEqual({
      code: 0,
      stdout: `up to date: ${MIGRATIONS.length} migrations applied, the database matches schema.prisma\n`,
      stderr: "",
    });
  });

  it("--check lists a migration the database lacks, and migrate then applies just that one", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svcctl-migrations-"));
    fs.cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    fs.mkdirSync(path.join(dir, "20991231000000_svcctl_test"));
    fs.writeFileSync(path.join(dir, "20991231000000_svcctl_test", "migration.sql"), "SELECT 1;\n");
    const options = { migrationPaths: { migrationsDir: dir, schemaPath: SCHEMA_PATH } };
    expect(await svcctl(["migrate", "--check"], env, {}, options)).toEqual({
      code: 1,
      stdout: "pending migrations (1):\n  20991231000000_svcctl_test\n",
      stderr: "error: 1 migration pending: run 'svcctl migrate'\n",
    });
    expect(await svcctl(["migrate"], env, {}, options)).toEqual({
      code: 0,
      stdout: `applied 20991231000000_svcctl_test\napplied 1 migration (${MIGRATIONS.length} already applied before)\n`,
      stderr: "",
    });
    // The database now knows a migration this build does not: a warning, not a failure.
    expect(await svcctl(["migrate"], env)).toEqual({
      code: 0,
      stdout: `nothing to apply: ${MIGRATIONS.length} migrations already applied\n`,
      stderr: "warning: database has migrations this build does not know: 20991231000000_svcctl_test\n",
    });
  });

  it("--check exits 1 and prints each difference when the database drifted from schema.prisma", async () => {
    await sql(
      "ALTER TABLE api_keys ADD COLUMN note text; ALTER TABLE api_keys ALTER COLUMN name DROP NOT NULL",
    );
    expect(await svcctl(["migrate", "--check"], env)).toEqual({
      code: 1,
      stdout: [
        "the database differs from schema.prisma (2):",
        "  - api_keys.name: nullable in the database, schema expects NOT NULL",
        '  - api_keys: extra column "note"',
        "",
      ].join("\n"),
      stderr: "error: database drifted from schema.prisma: 2 differences\n",
    });
  });
});
