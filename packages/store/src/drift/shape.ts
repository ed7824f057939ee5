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

export interface ColumnShape {
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
