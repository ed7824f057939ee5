import { AppError } from "@svc/core";
import { isUniqueViolation, type KeyedRows, type Database } from "@svc/store";
import { pageWindow, toPage, type PageRequest } from "./paging";

// Admin resources with keys (categories, templates, rules, agents) share one HTTP contract
// (docs/api.md, "Admin resources"): POST creates (409 when the key exists), PUT replaces or
// creates, PATCH changes the given fields, DELETE answers 204. This holds that contract once;
// each resource supplies how to validate, store and show itself.

export interface KeyedResourceSpec<Row extends { key: string; created_at: Date }, Input, Fields, View> {
  /** Singular noun for messages: "category", "rule". */
  noun: string;
  db: Database;
  /** The resource's statements (packages/store/src/repositories/config-resources). */
  rows: KeyedRows<Row, Fields>;
  /** Fields to store; `full` is true for POST and PUT (missing fields take their defaults). */
  toFields: (input: Input, full: boolean, existing: Row | null) => Promise<Fields>;
  serialize: (row: Row) => View;
  /** Rows hidden from reads (soft-deleted agents). */
  isHidden?: (row: Row) => boolean;
  /** Throws when the row may not be deleted (built-in categories). */
  beforeDelete?: (row: Row) => Promise<void> | void;
  /** Does the delete; default is a hard delete. */
  remove?: (row: Row) => Promise<void>;
  /** Runs after a write (for example: disabling a rule cancels its open digests). */
  afterWrite?: (row: Row) => Promise<void>;
}

export function keyedResource<Row extends { key: string; created_at: Date }, Input, Fields, View>(
  spec: KeyedResourceSpec<Row, Input, Fields, View>,
) {
  const { db, rows } = spec;
  const visible = (row: Row | null): row is Row => row !== null && !(spec.isHidden?.(row) ?? false);
  const notFound = (key: string) => new AppError("not_found", `no ${spec.noun} '${key}'`);
  const exists = (key: string) => new AppError("conflict", `${spec.noun} '${key}' already exists`);

  async function findVisible(key: string): Promise<Row> {
    const row = await rows.find(db, key);
    if (!visible(row)) throw notFound(key);
    return row;
  }

  async function written(row: Row): Promise<View> {
    await spec.afterWrite?.(row);
    return spec.serialize(row);
  }

  return {
    async create(key: string, input: Input, now: Date): Promise<View> {
      const existing = await rows.find(db, key);
      if (existing) throw exists(key);
      const fields = await spec.toFields(input, true, null);
      try {
        return await written(await rows.insert(db, key, fields, now));
      } catch (error) {
        if (isUniqueViolation(error)) throw exists(key);
        throw error;
      }
    },

    async replace(key: string, input: Input, now: Date): Promise<{ created: boolean; view: View }> {
      const existing = await rows.find(db, key);
      if (existing && !visible(existing))
        throw new AppError("conflict", `${spec.noun} '${key}' was deleted; its key cannot be reused`);
      const fields = await spec.toFields(input, true, existing);
      const row = await rows.save(db, key, fields, now);
      return { created: !existing, view: await written(row) };
    },

    async update(key: string, input: Input, now: Date): Promise<View> {
      const existing = await findVisible(key);
      const fields = await spec.toFields(input, false, existing);
      return written(await rows.change(db, key, fields, now));
    },

    async get(key: string): Promise<View> {
      return spec.serialize(await findVisible(key));
    },

    /** The stored row that `get` shows, for use cases that read more than the view. */
    row: findVisible,

    async list(request: PageRequest) {
      const window = pageWindow(request);
      const page = await rows.findPage(db, window);
      return toPage(page, window, (row) => row.key, spec.serialize);
    },

    async remove(key: string): Promise<void> {
      const row = await findVisible(key);
      await spec.beforeDelete?.(row);
      if (spec.remove) await spec.remove(row);
      else await rows.purge(db, key);
    },
  };
}
