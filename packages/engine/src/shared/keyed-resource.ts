import { AppError } from "@svc/core";
import { isUniqueViolation, pageArgs } from "@svc/store";
import { pageWindow, toPage, type PageRequest } from "./paging";

// Admin resources with keys (categories, templates, rules, agents) share one HTTP contract
// (DECISIONS "Requests and responses"): POST creates (409 when the key exists), PUT replaces or
// creates, PATCH changes the given fields, DELETE answers 204. This holds that contract once;
// each resource supplies how to validate, store and show itself.

/** The part of a Prisma model delegate these operations use. */
interface KeyedDelegate<Row> {
  findUnique(args: { where: { key: string } }): Promise<Row | null>;
  findMany(args: { where: object; orderBy: object[]; take: number }): Promise<Row[]>;
  create(args: { data: any }): Promise<Row>;
  update(args: { where: { key: string }; data: any }): Promise<Row>;
  upsert(args: { where: { key: string }; create: any; update: any }): Promise<Row>;
  delete(args: { where: { key: string } }): Promise<Row>;
}

export interface KeyedResourceSpec<Row extends { key: string; created_at: Date }, Input, View> {
  /** Singular noun for messages: "category", "rule". */
  noun: string;
  delegate: () => KeyedDelegate<Row>;
  /** Fields to store; `full` is true for POST and PUT (missing fields take their defaults). */
  toData: (input: Input, full: boolean, existing: Row | null) => Promise<Record<string, unknown>>;
  serialize: (row: Row) => View;
  /** Rows hidden from reads (soft-deleted agents). */
  isHidden?: (row: Row) => boolean;
  hiddenWhere?: object;
  /** Throws when the row may not be deleted (built-in categories). */
  beforeDelete?: (row: Row) => Promise<void> | void;
  /** Does the delete; default is a hard delete. */
  remove?: (row: Row) => Promise<void>;
  /** Runs after a write (for example: disabling a rule cancels its open digests). */
  afterWrite?: (row: Row) => Promise<void>;
}

export function keyedResource<Row extends { key: string; created_at: Date }, Input, View>(
  spec: KeyedResourceSpec<Row, Input, View>,
) {
  const visible = (row: Row | null): row is Row => row !== null && !(spec.isHidden?.(row) ?? false);
  const notFound = (key: string) => new AppError("not_found", `no ${spec.noun} '${key}'`);
  const exists = (key: string) => new AppError("conflict", `${spec.noun} '${key}' already exists`);

  async function findVisible(key: string): Promise<Row> {
    const row = await spec.delegate().findUnique({ where: { key } });
    if (!visible(row)) throw notFound(key);
    return row;
  }

  async function written(row: Row): Promise<View> {
    await spec.afterWrite?.(row);
    return spec.serialize(row);
  }

  return {
    async create(key: string, input: Input, now: Date): Promise<View> {
      const existing = await spec.delegate().findUnique({ where: { key } });
      if (existing) throw exists(key);
      const data = await spec.toData(input, true, null);
      try {
        return await written(await spec.delegate().create({ data: { ...data, key, created_at: now } }));
      } catch (error) {
        if (isUniqueViolation(error)) throw exists(key);
        throw error;
      }
    },

    async replace(key: string, input: Input, now: Date): Promise<{ created: boolean; view: View }> {
      const existing = await spec.delegate().findUnique({ where: { key } });
      if (existing && !visible(existing))
        throw new AppError("conflict", `${spec.noun} '${key}' was deleted; its key cannot be reused`);
      const data = await spec.toData(input, true, existing);
      const row = await spec
        .delegate()
        .upsert({ where: { key }, create: { ...data, key, created_at: now }, update: data });
      return { created: !existing, view: await written(row) };
    },

    async update(key: string, input: Input): Promise<View> {
      const existing = await findVisible(key);
      const data = await spec.toData(input, false, existing);
      return written(await spec.delegate().update({ where: { key }, data }));
    },

    async get(key: string): Promise<View> {
      return spec.serialize(await findVisible(key));
    },

    async list(request: PageRequest) {
      const window = pageWindow(request);
      const q = pageArgs(window, "key");
      const rows = await spec
        .delegate()
        .findMany({ where: { ...q.where, ...spec.hiddenWhere }, orderBy: q.orderBy, take: q.take });
      return toPage(rows, window, (row) => row.key, spec.serialize);
    },

    async remove(key: string): Promise<void> {
      const row = await findVisible(key);
      await spec.beforeDelete?.(row);
      if (spec.remove) await spec.remove(row);
      else await spec.delegate().delete({ where: { key } });
    },
  };
}
