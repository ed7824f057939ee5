import type { Pool } from "pg";

/** Messages made since `since` that reached `sent` or `delivered`. */
export async function sentCount(pool: Pool, since: Date): Promise<number> {
  const { rows } = await pool.query(
    `SELECT count(*)::int AS n FROM messages WHERE status IN ('sent', 'delivered') AND created_at >= $1`,
    [since],
  );
  return rows[0].n as number;
}
