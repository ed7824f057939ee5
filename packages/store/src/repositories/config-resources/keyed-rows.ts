import { json, nullableJson } from "../json-columns";
import { pageArgs, type PageWindow } from "../paging";
import { type Database } from "../../transaction";

// Categories, templates, rules and agents are admin resources with a key and one HTTP contract
// (the engine's shared/keyed-resource.ts). Each gets this small repository over its table.

/** The statements of one keyed admin resource; `Fields` are its writable columns. */
export interface KeyedRows<Row, Fields> {
  /** The row with this key, soft-deleted ones included. */
  find(db: Database, key: string): Promise<Row | null>;
  /** Newest first (see ../paging.ts); soft-deleted rows are left out. */
  findPage(db: Database, window: PageWindow): Promise<Row[]>;
  /** A new row; a taken key fails with a unique violation. */
  insert(db: Database, key: string, fields: Fields, now: Date): Promise<Row>;
  /** The row with these fields: inserted (created now) or replaced. */
  save(db: Database, key: string, fields: Fields, now: Date): Promise<Row>;
  /** Changes the given fields of an existing row (updated at `now`). */
  change(db: Database, key: string, fields: Fields, now: Date): Promise<Row>;
  /** Deletes the row for good. */
  purge(db: Database, key: string): Promise<void>;
}

/**
 * Columns as a table's Prisma delegate takes them to write. This helper serves several tables and
 * cannot name their input types: `never` lets each table's delegate fit, and the columns built below
 * (each table's `Fields`, with the JSON columns prepared) are cast to it.
 */
type Columns = never;

/** The part of a Prisma model delegate keyed rows use. */
interface KeyedDelegate<Row> {
  findUnique(args: { where: { key: string } }): Promise<Row | null>;
  findMany(args: { where: object; orderBy: object[]; take: number }): Promise<Row[]>;
  create(args: { data: Columns }): Promise<Row>;
  update(args: { where: { key: string }; data: Columns }): Promise<Row>;
  upsert(args: { where: { key: string }; create: Columns; update: Columns }): Promise<Row>;
  delete(args: { where: { key: string } }): Promise<Row>;
}

export function keyedRows<Row, Fields extends object>(options: {
  table: (db: Database) => KeyedDelegate<Row>;
  /** JSON columns: `nullable` ones store a null as SQL NULL. */
  jsonColumns?: { nullable?: (keyof Fields)[]; notNull?: (keyof Fields)[] };
  /** Rows lists show; all when absent. */
  visible?: object;
}): KeyedRows<Row, Fields> {
  const { table, jsonColumns = {}, visible } = options;
  const columns = (fields: Fields) => {
    const data = { ...fields } as Record<string, unknown>;
    for (const key of jsonColumns.nullable ?? []) data[key as string] = nullableJson(fields[key]);
    for (const key of jsonColumns.notNull ?? []) data[key as string] = json(fields[key]);
    return data;
  };
  const write = (data: Record<string, unknown>) => data as Columns;
  return {
    find: (db, key) => table(db).findUnique({ where: { key } }),
    findPage(db, window) {
      const q = pageArgs(window, "key");
      return table(db).findMany({ where: { ...q.where, ...visible }, orderBy: q.orderBy, take: q.take });
    },
    insert: (db, key, fields, now) =>
      table(db).create({ data: write({ ...columns(fields), key, created_at: now, updated_at: now }) }),
    save(db, key, fields, now) {
      const data = columns(fields);
      return table(db).upsert({
        where: { key },
        create: write({ ...data, key, created_at: now, updated_at: now }),
        update: write({ ...data, updated_at: now }),
      });
    },
    change: (db, key, fields, now) =>
      table(db).update({ where: { key }, data: write({ ...columns(fields), updated_at: now }) }),
    async purge(db, key) {
      await table(db).delete({ where: { key } });
    },
  };
}

/** A frequency cap as stored: the period in seconds. */
export interface StoredCapColumn {
  period: number;
  limit: number;
}
