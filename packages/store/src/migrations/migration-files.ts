import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { MigrationError } from "./migration-error";

export interface MigrationFile {
  name: string;
  sql: string;
  /** Hex SHA-256 of migration.sql, the value Prisma stores in `_prisma_migrations.checksum`. */
  checksum: string;
}

export function migrationChecksum(sql: string | Buffer): string {
  return createHash("sha256").update(sql).digest("hex");
}

/** Reads `<dir>/<name>/migration.sql` for every folder, in name order (Prisma's timestamp prefixes). */
export async function readMigrationFiles(migrationsDir: string): Promise<MigrationFile[]> {
  if (!existsSync(migrationsDir)) return [];
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const files: MigrationFile[] = [];
  for (const name of names) {
    const sqlPath = path.join(migrationsDir, name, "migration.sql");
    if (!existsSync(sqlPath)) {
      throw new MigrationError("missing_sql", `Migration folder ${name} has no migration.sql (${sqlPath})`);
    }
    // Hash the raw bytes: Prisma does, and a re-encoded file must count as changed.
    const bytes = await readFile(sqlPath);
    files.push({ name, sql: bytes.toString("utf8"), checksum: migrationChecksum(bytes) });
  }
  return files;
}
