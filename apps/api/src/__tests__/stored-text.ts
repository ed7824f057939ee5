import type { PrismaClient } from "@svc/store";

// What svc stores, searched as text: a token or a secret that must never be kept is in none of it.

/** `table.column` of every row in the public schema whose text (text, JSON, arrays) holds `needle`. */
export async function rowsHolding(prisma: PrismaClient, needle: string): Promise<string[]> {
  const columns = await prisma.$queryRawUnsafe<{ table_name: string; column_name: string }[]>(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public'
        AND (data_type IN ('text', 'character varying', 'character', 'json', 'jsonb')
             OR (data_type = 'ARRAY' AND udt_name IN ('_text', '_varchar', '_json', '_jsonb')))
      ORDER BY table_name, column_name`,
  );
  if (columns.length < 50) throw new Error(`only ${columns.length} text columns: is this svc's schema?`);
  const found: string[] = [];
  for (const { table_name, column_name } of columns) {
    const [row] = await prisma.$queryRawUnsafe<{ count: bigint }[]>(
      `SELECT count(*) AS count FROM "${table_name}" WHERE strpos("${column_name}"::text, $1) > 0`,
      needle,
    );
    for (let i = 0; i < Number(row!.count); i++) found.push(`${table_name}.${column_name}`);
  }
  return found;
}
