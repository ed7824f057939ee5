import type { ConfigValues } from "./schema";

/**
 * The URL for what needs a database session of its own (migrations under their advisory lock,
 * creating the database): `database.direct_url` when set, else `database.url`
 * (docs/scaling.md "Behind PgBouncer").
 */
export function sessionDatabaseUrl(config: Pick<ConfigValues, "database">): string {
  return config.database.direct_url ?? config.database.url;
}
