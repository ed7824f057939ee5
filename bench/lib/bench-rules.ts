import type { Pool } from "pg";

/**
 * The drain benchmarks' template (`bench`) and their main rule (`bench-drain`: `bench.drain`
 * events, transactional, push), written straight into a fresh database.
 */
export async function insertDrainTemplateAndRule(pool: Pool): Promise<void> {
  await pool.query(`INSERT INTO templates (key, locales, updated_at) VALUES ('bench', $1, now())`, [
    JSON.stringify({
      en: {
        title: "Order {{ data.order }}",
        body: "Hello {{ recipient.external_id }}, order {{ data.order }} shipped.",
      },
    }),
  ]);
  await pool.query(
    `INSERT INTO rules (key, event, template, category, channels, condition, digest, updated_at)
     VALUES ('bench-drain', 'bench.drain', 'bench', 'transactional', ARRAY['push'], NULL, NULL, now())`,
  );
}
