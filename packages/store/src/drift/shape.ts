/** One side of a drift comparison: what the schema expects or what the database has. */
export interface SchemaShape {
  tables: TableShape[];
  /** Enum type name -> values in declaration order. */
  enums: Map<string, string[]>;
}

export interface TableShape {
  name: string;
  /** Set on the expected side, for messages. */
  model?: string;
  columns: ColumnShape[];
  primaryKey: KeyShape | null;
  indexes: IndexShape[];
  foreignKeys: ForeignKeyShape[];
}

interface ColumnShape {
  name: string;
  /** In `format_type()` spelling, normalised (see normaliseType). */
  type: string;
  notNull: boolean;
}

export interface KeyShape {
  name: string;
  columns: string[];
}

export interface IndexShape extends KeyShape {
  unique: boolean;
  /** A partial index's predicate as Postgres prints it (`pg_get_expr`), outer parentheses removed; null for a full index. */
  where: string | null;
}

/** `(agent_key IS NOT NULL)` → `agent_key IS NOT NULL`: Postgres wraps a printed predicate, a schema's `raw()` need not. */
export function normalisePredicate(predicate: string | null): string | null {
  if (predicate === null) return null;
  const trimmed = predicate.trim();
  return wrappedWhole(trimmed) ? normalisePredicate(trimmed.slice(1, -1)) : trimmed;
}

// True when the first parenthesis closes at the very end: `(a = 1)`, not `(a) AND (b)`.
function wrappedWhole(text: string): boolean {
  if (!text.startsWith("(") || !text.endsWith(")")) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === "(") depth += 1;
    else if (text[i] === ")") depth -= 1;
    if (depth === 0 && i < text.length - 1) return false;
  }
  return true;
}

export interface ForeignKeyShape {
  columns: string[];
  referencedTable: string;
  referencedColumns: string[];
  /** Only known on the database side. */
  name?: string;
}

/** Makes `format_type()` output and our expectations comparable: no quotes, default precisions spelled out. */
export function normaliseType(type: string): string {
  return type
    .replace(/"/g, "")
    .replace(/^public\./, "")
    .replace(/^(timestamp|time) (with|without) time zone/, "$1(6) $2 time zone");
}
