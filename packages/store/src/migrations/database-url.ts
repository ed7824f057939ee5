import { withClient } from "../one-shot-client";

/** Database named in a postgres URL (`postgresql://user@host:5432/<name>`). */
export function databaseNameOf(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ""));
  if (!name) throw new Error("The database URL names no database");
  return name;
}

/** Same server and credentials, another database. */
export function withDatabaseName(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

const DUPLICATE_DATABASE = "42P04";
// Two concurrent CREATE DATABASE of one name can also collide on pg_database's unique index.
const UNIQUE_VIOLATION = "23505";

/** Creates the URL's database through the `postgres` maintenance database; returns true when it made it. */
export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const name = databaseNameOf(databaseUrl);
  return withClient(withDatabaseName(databaseUrl, "postgres"), async (admin) => {
    try {
      const found = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
      if (found.rowCount) return false;
      await admin.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
      return true;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === DUPLICATE_DATABASE || code === UNIQUE_VIOLATION) return false;
      throw error;
    }
  });
}

/** Drops a database, closing other sessions on it (used by tests and svcctl, never by the service). */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  await withClient(withDatabaseName(databaseUrl, "postgres"), (admin) =>
    admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(databaseNameOf(databaseUrl))} WITH (FORCE)`),
  );
}
