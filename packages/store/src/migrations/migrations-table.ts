import type { ClientBase } from "pg";

/** Prisma's own DDL for PostgreSQL (schema-engine 7.10), so `prisma migrate deploy` reads our history. */
export const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationRow {
  id: string;
  checksum: string;
  migration_name: string;
  started_at: Date;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

type Queryable = Pick<ClientBase, "query">;

/** Rows of `_prisma_migrations`, or none when the table does not exist yet. */
export async function readMigrationRows(db: Queryable): Promise<MigrationRow[]> {
  const table = await db.query<{ exists: boolean }>(
    "SELECT to_regclass('_prisma_migrations') IS NOT NULL AS exists",
  );
  if (!table.rows[0]?.exists) return [];
  const result = await db.query<MigrationRow>(
    `SELECT id, checksum, migration_name, started_at, finished_at, rolled_back_at
       FROM _prisma_migrations ORDER BY started_at, migration_name`,
  );
  return result.rows;
}
