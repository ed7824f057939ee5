import { randomBytes } from "node:crypto";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "pg";
import { dropDatabase, withDatabaseName } from "../migrations";

// Test-only helpers for the store's own tests (the testkit builds on the store, so it is not used here).
export const SERVER_URL = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export function scratchDatabaseUrl(prefix: string): string {
  return withDatabaseName(SERVER_URL, `svc_test_${prefix}_${randomBytes(5).toString("hex")}`);
}

export { dropDatabase };

/** Writes `{name: sql}` as Prisma-style migration folders in a fresh temp dir. */
export function migrationsFixture(migrations: Record<string, string>): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-migrations-"));
  for (const [name, sql] of Object.entries(migrations)) writeMigration(dir, name, sql);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export function writeMigration(dir: string, name: string, sql: string): void {
  mkdirSync(path.join(dir, name), { recursive: true });
  writeFileSync(path.join(dir, name, "migration.sql"), sql);
}

export async function query<T extends Record<string, unknown>>(
  databaseUrl: string,
  sql: string,
  params: unknown[] = [],
) {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

export const REAL_MIGRATIONS_DIR = path.resolve(__dirname, "../../../../prisma/migrations");
