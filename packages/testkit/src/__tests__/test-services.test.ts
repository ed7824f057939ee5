import Redis from "ioredis";
import { Client } from "pg";
import { readMigrationFiles } from "@svc/store";
import {
  createTestDatabase,
  MIGRATIONS_DIR,
  reserveTestDatabase,
  testRedisPrefix,
  TEST_REDIS_URL,
  TEST_SERVER_URL,
} from "..";

async function databaseExists(name: string): Promise<boolean> {
  const client = new Client({ connectionString: TEST_SERVER_URL });
  await client.connect();
  try {
    return ((await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount ?? 0) > 0;
  } finally {
    await client.end();
  }
}

describe("createTestDatabase", () => {
  it("makes a uniquely named, fully migrated database and drops it", async () => {
    const [db, other] = await Promise.all([createTestDatabase("Test Kit!"), createTestDatabase("Test Kit!")]);
    try {
      expect(db.name).toMatch(/^svc_test_test_kit__[0-9a-f]{10}$/);
      expect(other.name).not.toBe(db.name);
      const migrations = (await readMigrationFiles(MIGRATIONS_DIR)).map((file) => file.name);
      const applied = await db.prisma.$queryRaw<{ migration_name: string }[]>`
        SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name`;
      expect(applied.map((row) => row.migration_name)).toEqual(migrations);
      expect(db.prisma).toBe(db.prisma);
    } finally {
      await Promise.all([db.drop(), other.drop()]);
    }
    expect(await databaseExists(db.name)).toBe(false);
    await db.drop(); // idempotent
    expect(() => db.prisma).toThrow(`test database ${db.name} was dropped`);
  });

  it("makes an empty database when asked not to migrate", async () => {
    const db = await createTestDatabase("empty", { migrate: false });
    try {
      expect(await databaseExists(db.name)).toBe(true);
      const tables = await db.prisma.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`;
      expect(tables[0]!.n).toBe(0);
    } finally {
      await db.drop();
    }
    expect(await databaseExists(db.name)).toBe(false);
  });
});

describe("reserveTestDatabase", () => {
  it("names a database on the test server without creating it, and drops what was made of it", async () => {
    const db = reserveTestDatabase("reserved");
    expect(db.name).toMatch(/^svc_test_reserved_[0-9a-f]{10}$/);
    expect(new URL(db.databaseUrl).pathname).toBe(`/${db.name}`);
    expect(new URL(db.databaseUrl).host).toBe(new URL(TEST_SERVER_URL).host);
    expect(await databaseExists(db.name)).toBe(false);
    await db.drop(); // nothing made yet: no error

    const made = reserveTestDatabase("reserved");
    const admin = new Client({ connectionString: TEST_SERVER_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${made.name}`).finally(() => admin.end());
    expect(await databaseExists(made.name)).toBe(true);
    await made.drop();
    expect(await databaseExists(made.name)).toBe(false);
  });
});

describe("testRedisPrefix", () => {
  const redis = new Redis(TEST_REDIS_URL);
  afterAll(() => redis.quit());

  it("cleans up its own keys and nobody else's", async () => {
    const mine = testRedisPrefix("redis");
    const theirs = testRedisPrefix("redis");
    expect(mine.prefix).toMatch(/^svc_test_redis_[0-9a-f]{10}$/);
    expect(theirs.prefix).not.toBe(mine.prefix);
    await redis.set(`${mine.prefix}:a`, "1");
    await redis.hset(`${mine.prefix}:queue:b`, "k", "v");
    await redis.set(`${theirs.prefix}:a`, "1");

    expect(await mine.cleanup()).toBe(2);

    expect(await redis.exists(`${mine.prefix}:a`, `${mine.prefix}:queue:b`)).toBe(0);
    expect(await redis.get(`${theirs.prefix}:a`)).toBe("1");
    expect(await theirs.cleanup()).toBe(1);
  });
});
