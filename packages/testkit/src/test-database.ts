import { randomBytes } from "node:crypto";
import { createPrisma, dropDatabase, migrate, withDatabaseName, type PrismaClient } from "@svc/store";
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
}

/** A fresh database with the real migrations applied, one per test file: `afterAll(() => db.drop())`. */
export async function createTestDatabase(
  prefix: string,
  options: CreateTestDatabaseOptions = {},
): Promise<TestDatabase> {
  // 63 bytes is Postgres' identifier limit: "svc_test_" + prefix(40) + "_" + 10 hex.
  const name = `svc_test_${safeName(prefix, 40)}_${randomBytes(5).toString("hex")}`;
  const databaseUrl = withDatabaseName(TEST_SERVER_URL, name);
  await migrate({
    databaseUrl,
    migrationsDir: options.migrationsDir ?? MIGRATIONS_DIR,
    createDatabase: true,
  });

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
