import type { ClientBase } from "pg";
import { normalisePredicate, normaliseType, type SchemaShape, type TableShape } from "./shape";

// Prisma's own bookkeeping table is not part of the schema.
const IGNORED_TABLES = new Set(["_prisma_migrations"]);

const IN_SCHEMA = "n.nspname = current_schema()";

/** Reads tables, columns, keys, indexes and enums of the connection's current schema from pg_catalog. */
export async function introspectShape(db: Pick<ClientBase, "query">): Promise<SchemaShape> {
  const tables = new Map<string, TableShape>();
  const tableNamed = (name: string) => tables.get(name);

  const tableRows = await db.query<{ name: string }>(
    `SELECT c.relname::text AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE ${IN_SCHEMA} AND c.relkind IN ('r', 'p') ORDER BY 1`,
  );
  for (const { name } of tableRows.rows) {
    if (!IGNORED_TABLES.has(name))
      tables.set(name, { name, columns: [], primaryKey: null, indexes: [], foreignKeys: [] });
  }

  const columnRows = await db.query<{ table: string; name: string; type: string; not_null: boolean }>(
    `SELECT c.relname::text AS table, a.attname::text AS name, format_type(a.atttypid, a.atttypmod) AS type,
            a.attnotnull AS not_null
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE ${IN_SCHEMA} AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY c.relname, a.attnum`,
  );
  for (const row of columnRows.rows) {
    tableNamed(row.table)?.columns.push({
      name: row.name,
      type: normaliseType(row.type),
      notNull: row.not_null,
    });
  }

  // Key columns only (INCLUDE columns excluded); an expression shows as its definition.
  const indexRows = await db.query<{
    table: string;
    name: string;
    unique: boolean;
    primary: boolean;
    columns: string[];
    where: string | null;
  }>(
    `SELECT t.relname::text AS table, i.relname::text AS name, x.indisunique AS unique, x.indisprimary AS primary,
            pg_get_expr(x.indpred, x.indrelid) AS where,
            ARRAY(SELECT COALESCE(a.attname::text, pg_get_indexdef(x.indexrelid, k.i + 1, true))
                    FROM generate_series(0, x.indnkeyatts - 1) AS k(i)
                    LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[k.i]
                   ORDER BY k.i) AS columns
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE ${IN_SCHEMA} ORDER BY t.relname, i.relname`,
  );
  for (const row of indexRows.rows) {
    const table = tableNamed(row.table);
    if (!table) continue;
    if (row.primary) table.primaryKey = { name: row.name, columns: row.columns };
    else
      table.indexes.push({
        name: row.name,
        columns: row.columns,
        unique: row.unique,
        where: normalisePredicate(row.where),
      });
  }

  const foreignKeyRows = await db.query<{
    table: string;
    name: string;
    columns: string[];
    referenced_table: string;
    referenced_columns: string[];
  }>(
    `SELECT t.relname::text AS table, con.conname::text AS name, r.relname::text AS referenced_table,
            ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
            ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS referenced_columns
       FROM pg_constraint con JOIN pg_class t ON t.oid = con.conrelid JOIN pg_class r ON r.oid = con.confrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE ${IN_SCHEMA} AND con.contype = 'f' ORDER BY t.relname, con.conname`,
  );
  for (const row of foreignKeyRows.rows) {
    tableNamed(row.table)?.foreignKeys.push({
      name: row.name,
      columns: row.columns,
      referencedTable: row.referenced_table,
      referencedColumns: row.referenced_columns,
    });
  }

  const enumRows = await db.query<{ name: string; values: string[] }>(
    `SELECT t.typname::text AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS values
       FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE ${IN_SCHEMA} GROUP BY t.typname ORDER BY 1`,
  );
  return { tables: [...tables.values()], enums: new Map(enumRows.rows.map((row) => [row.name, row.values])) };
}
