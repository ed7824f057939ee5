import path from "node:path";

// Test-only defaults: the real services the suite runs against (Postgres 15 and Redis 7 on
// 127.0.0.1, as in docker-compose.yml and the README's Quick start). TEST_DATABASE_URL /
// TEST_REDIS_URL point a CI run elsewhere; the testkit is a composition root for tests, so it may
// read them.
export const TEST_SERVER_URL =
  process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

export const REPO_ROOT = path.resolve(__dirname, "../../..");
export const MIGRATIONS_DIR = path.join(REPO_ROOT, "prisma", "migrations");

/** `prefix` reduced to characters safe in a database name and a Redis glob, lower-cased. */
export function safeName(prefix: string, maxLength: number): string {
  return prefix
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "_")
    .slice(0, maxLength);
}
