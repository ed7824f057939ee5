import { randomBytes } from "node:crypto";
import {
  createPrisma,
  dropDatabase,
  ensureDatabase,
  migrate,
  withDatabaseName,
  type PrismaClient,
} from "@svc/store";
import { MIGRATIONS_DIR, safeName, TEST_SERVER_URL } from "./services";

export interface TestDatabase {
  /** `svc_test_<prefix>_<random>` on the test server. */
  name: string;
  databaseUrl: string;
  /** Created on first use; `drop()` disconnects it. */
  readonly prisma: PrismaClient;
  /** Disconnects and drops the database (other sessions are closed). Safe to call twice. */
  drop(): Promise<void>;
}

export interface CreateTestDatabaseOptions {
  /** Defaults to the project's prisma/migrations. */
  migrationsDir?: string;
  poolMax?: number;
  /** false: an empty database, no tables (for code under test that migrates it, or a test's own tables). */
  migrate?: boolean;
}

// The one place tests name, create and drop their databases (packages/testkit/README.md): every
// test database is `svc_test_*` on TEST_SERVER_URL, so a run pointed elsewhere by TEST_DATABASE_URL
// takes all of them along.

/**
 * A test database's name and URL, not created: for code under test that creates (and migrates) its
 * database itself (`npm start`, `svcctl migrate`, a supervisor). `drop()` removes whatever it made.
 */
export function reserveTestDatabase(prefix: string, options: { poolMax?: number } = {}): TestDatabase {
  // 63 bytes is Postgres' identifier limit: "svc_test_" + prefix(40) + "_" + 10 hex.
  const name = `svc_test_${safeName(prefix, 40)}_${randomBytes(5).toString("hex")}`;
  const databaseUrl = withDatabaseName(TEST_SERVER_URL, name);
  let prisma: PrismaClient | undefined;
  let dropped = false;
  return {
    name,
    databaseUrl,
    get prisma() {
      if (dropped) throw new Error(`test database ${name} was dropped`);
      prisma ??= createPrisma({ databaseUrl, poolMax: options.poolMax });
      return prisma;
    },
    async drop() {
      if (dropped) return;
      dropped = true;
      await prisma?.$disconnect();
      await dropDatabase(databaseUrl);
    },
  };
}

/** A fresh database with the real migrations applied, one per test file: `afterAll(() => db.drop())`. */
export async function createTestDatabase(
  prefix: string,
  options: CreateTestDatabaseOptions = {},
): Promise<TestDatabase> {
  const db = reserveTestDatabase(prefix, options);
  if (options.migrate === false) {
    await ensureDatabase(db.databaseUrl);
  } else {
    await migrate({
      databaseUrl: db.databaseUrl,
      migrationsDir: options.migrationsDir ?? MIGRATIONS_DIR,
      createDatabase: true,
    });
  }
  return db;
}
