import {
  normaliseType,
  type ForeignKeyShape,
  type IndexShape,
  type SchemaShape,
  type TableShape,
} from "./shape";
import { partialIndexKey, type PartialIndexPredicates } from "./partial-indexes";

// The subset of Prisma's DMMF datamodel that drift needs.
interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: "scalar" | "enum" | "object" | "unsupported";
  type: string;
  isList: boolean;
  isRequired: boolean;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
}
interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}
interface DmmfIndex {
  model: string;
  type: "id" | "unique" | "normal" | "fulltext";
  dbName?: string | null;
  fields: { name: string }[];
}
export interface DmmfDatamodel {
  models: DmmfModel[];
  enums: { name: string; dbName?: string | null; values: { name: string; dbName: string | null }[] }[];
  indexes: DmmfIndex[];
}

const POSTGRES_IDENTIFIER_LIMIT = 63;

const SCALAR_TYPES: Record<string, string> = {
  String: "text",
  Int: "integer",
  BigInt: "bigint",
  Boolean: "boolean",
  DateTime: "timestamp(3) without time zone",
  Json: "jsonb",
  Bytes: "bytea",
  Decimal: "numeric(65,30)",
  Float: "double precision",
};

const NATIVE_TYPES: Record<string, (args: string[]) => string> = {
  Text: () => "text",
  VarChar: (a) => (a.length ? `character varying(${a[0]})` : "character varying"),
  Char: (a) => `character(${a[0] ?? 1})`,
  Bit: (a) => `bit(${a[0] ?? 1})`,
  VarBit: (a) => (a.length ? `bit varying(${a[0]})` : "bit varying"),
  Uuid: () => "uuid",
  Xml: () => "xml",
  Inet: () => "inet",
  Citext: () => "citext",
  Boolean: () => "boolean",
  Integer: () => "integer",
  SmallInt: () => "smallint",
  BigInt: () => "bigint",
  Oid: () => "oid",
  Decimal: (a) => (a.length ? `numeric(${a.join(",")})` : "numeric(65,30)"),
  Money: () => "money",
  Real: () => "real",
  DoublePrecision: () => "double precision",
  Date: () => "date",
  Time: (a) => `time(${a[0] ?? 6}) without time zone`,
  Timetz: (a) => `time(${a[0] ?? 6}) with time zone`,
  Timestamp: (a) => `timestamp(${a[0] ?? 6}) without time zone`,
  Timestamptz: (a) => `timestamp(${a[0] ?? 6}) with time zone`,
  Json: () => "json",
  JsonB: () => "jsonb",
  ByteA: () => "bytea",
};

/** Prisma's default constraint names (psl ConstraintNames), cut to Postgres' 63 bytes the same way. */
export function defaultIndexName(
  table: string,
  columns: string[],
  suffix: "_key" | "_idx" | "_fkey",
): string {
  const base = `${table}_${columns.join("_")}`;
  const room = POSTGRES_IDENTIFIER_LIMIT - suffix.length;
  return (base.length >= room ? base.slice(0, room) : base) + suffix;
}

export function defaultPrimaryKeyName(table: string): string {
  const room = POSTGRES_IDENTIFIER_LIMIT - 5;
  return (table.length >= room ? table.slice(0, room) : table) + "_pkey";
}

/** Turns the DMMF into the tables, columns, keys and enums `prisma migrate` would create. */
export function expectedShape(
  datamodel: DmmfDatamodel,
  predicates: PartialIndexPredicates = new Map(),
): SchemaShape {
  const enumDbNames = new Map(datamodel.enums.map((e) => [e.name, e.dbName ?? e.name]));
  const models = new Map(datamodel.models.map((model) => [model.name, model]));
  const tableOf = (model: DmmfModel) => model.dbName ?? model.name;
  const columnOf = (model: DmmfModel, fieldName: string) => {
    const field = model.fields.find((f) => f.name === fieldName);
    return field?.dbName ?? fieldName;
  };

  const tables = datamodel.models.map((model): TableShape => {
    const table = tableOf(model);
    const scalars = model.fields.filter((field) => field.kind !== "object");
    const keyed = datamodel.indexes.filter((index) => index.model === model.name);
    const columnsOf = (index: DmmfIndex) => index.fields.map((f) => columnOf(model, f.name));
    const id = keyed.find((index) => index.type === "id");
    const indexes = keyed
      .filter((index) => index.type === "unique" || index.type === "normal")
      .map((index): IndexShape => {
        const unique = index.type === "unique";
        const columns = columnsOf(index);
        return {
          name: index.dbName ?? defaultIndexName(table, columns, unique ? "_key" : "_idx"),
          columns,
          unique,
          where:
            predicates.get(
              partialIndexKey(
                model.name,
                index.fields.map((f) => f.name),
              ),
            ) ?? null,
        };
      });
    const foreignKeys = model.fields
      .filter((field) => field.kind === "object" && (field.relationFromFields?.length ?? 0) > 0)
      .map((field): ForeignKeyShape => {
        const target = models.get(field.type)!;
        return {
          columns: field.relationFromFields!.map((name) => columnOf(model, name)),
          referencedTable: tableOf(target),
          referencedColumns: field.relationToFields!.map((name) => columnOf(target, name)),
        };
      });
    return {
      name: table,
      model: model.name,
      columns: scalars.map((field) => ({
        name: field.dbName ?? field.name,
        type: columnType(field, enumDbNames),
        // Prisma creates list columns without NOT NULL.
        notNull: field.isRequired && !field.isList,
      })),
      primaryKey: id ? { name: id.dbName ?? defaultPrimaryKeyName(table), columns: columnsOf(id) } : null,
      indexes,
      foreignKeys,
    };
  });

  const enums = new Map(
    datamodel.enums.map((e) => [e.dbName ?? e.name, e.values.map((value) => value.dbName ?? value.name)]),
  );
  return { tables, enums };
}

function columnType(field: DmmfField, enumDbNames: Map<string, string>): string {
  let base: string;
  if (field.kind === "enum") base = enumDbNames.get(field.type) ?? field.type;
  else if (field.nativeType) {
    const [name, args] = field.nativeType;
    const render = NATIVE_TYPES[name];
    base = render ? render(args) : name.toLowerCase();
  } else base = SCALAR_TYPES[field.type] ?? field.type.toLowerCase();
  return normaliseType(field.isList ? `${base}[]` : base);
}
