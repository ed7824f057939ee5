import type { ForeignKeyShape, IndexShape, KeyShape, SchemaShape, TableShape } from "./shape";

const list = (columns: string[]) => `(${columns.join(", ")})`;
const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((item, i) => item === b[i]);
const describeIndex = (index: IndexShape) =>
  `${index.unique ? "unique index" : "index"} "${index.name}" ${list(index.columns)}` +
  (index.where === null ? "" : ` where ${index.where}`);
const describeKey = (key: KeyShape) => `"${key.name}" ${list(key.columns)}`;
const describeForeignKey = (fk: ForeignKeyShape) =>
  `${list(fk.columns)} -> ${fk.referencedTable}${list(fk.referencedColumns)}`;

/** Every way the database differs from the schema, one sentence each, in a stable order. */
export function compareShapes(expected: SchemaShape, actual: SchemaShape): string[] {
  const differences: string[] = [];
  const actualTables = new Map(actual.tables.map((table) => [table.name, table]));
  const expectedNames = new Set(expected.tables.map((table) => table.name));

  for (const table of [...expected.tables].sort((a, b) => a.name.localeCompare(b.name))) {
    const found = actualTables.get(table.name);
    if (!found) differences.push(`missing table "${table.name}" (model ${table.model})`);
    else differences.push(...compareTable(table, found));
  }
  for (const table of actual.tables) {
    if (!expectedNames.has(table.name)) differences.push(`extra table "${table.name}"`);
  }

  for (const [name, values] of [...expected.enums].sort(([a], [b]) => a.localeCompare(b))) {
    const found = actual.enums.get(name);
    if (!found) differences.push(`missing enum "${name}"`);
    else if (!sameList(found, values)) {
      differences.push(`enum "${name}": values are ${list(found)}, schema expects ${list(values)}`);
    }
  }
  for (const name of actual.enums.keys()) {
    if (!expected.enums.has(name)) differences.push(`extra enum "${name}"`);
  }
  return differences;
}

function compareTable(expected: TableShape, actual: TableShape): string[] {
  const t = expected.name;
  const differences: string[] = [];
  const actualColumns = new Map(actual.columns.map((column) => [column.name, column]));
  for (const column of expected.columns) {
    const found = actualColumns.get(column.name);
    if (!found) {
      differences.push(`${t}: missing column "${column.name}"`);
      continue;
    }
    if (found.type !== column.type)
      differences.push(`${t}.${column.name}: type is ${found.type}, schema expects ${column.type}`);
    if (found.notNull !== column.notNull) {
      differences.push(
        `${t}.${column.name}: ${found.notNull ? "NOT NULL" : "nullable"} in the database, schema expects ${column.notNull ? "NOT NULL" : "nullable"}`,
      );
    }
  }
  const expectedColumns = new Set(expected.columns.map((column) => column.name));
  for (const column of actual.columns) {
    if (!expectedColumns.has(column.name)) differences.push(`${t}: extra column "${column.name}"`);
  }

  const [pkWant, pkHave] = [expected.primaryKey, actual.primaryKey];
  if (pkWant && !pkHave) differences.push(`${t}: missing primary key ${describeKey(pkWant)}`);
  if (!pkWant && pkHave) differences.push(`${t}: extra primary key ${describeKey(pkHave)}`);
  if (pkWant && pkHave && (pkWant.name !== pkHave.name || !sameList(pkWant.columns, pkHave.columns))) {
    differences.push(`${t}: primary key is ${describeKey(pkHave)}, schema expects ${describeKey(pkWant)}`);
  }

  differences.push(...compareIndexes(t, expected.indexes, actual.indexes));

  const unmatchedForeignKeys = [...actual.foreignKeys];
  for (const fk of expected.foreignKeys) {
    const at = unmatchedForeignKeys.findIndex((have) => describeForeignKey(have) === describeForeignKey(fk));
    if (at === -1) differences.push(`${t}: missing foreign key ${describeForeignKey(fk)}`);
    else unmatchedForeignKeys.splice(at, 1);
  }
  for (const fk of unmatchedForeignKeys)
    differences.push(`${t}: extra foreign key "${fk.name}" ${describeForeignKey(fk)}`);
  return differences;
}

// Matched by name first, then by kind and columns (a renamed index is reported as such).
function compareIndexes(t: string, expected: IndexShape[], actual: IndexShape[]): string[] {
  const differences: string[] = [];
  const unmatched = [...actual];
  const take = (predicate: (index: IndexShape) => boolean) => {
    const at = unmatched.findIndex(predicate);
    return at === -1 ? undefined : unmatched.splice(at, 1)[0];
  };
  const sameDefinition = (a: IndexShape, b: IndexShape) =>
    a.unique === b.unique && sameList(a.columns, b.columns) && a.where === b.where;
  const missing: IndexShape[] = [];
  for (const index of expected) {
    const byName = take((have) => have.name === index.name);
    if (byName && !sameDefinition(byName, index)) {
      differences.push(
        `${t}: ${describeIndex(byName)} in the database, schema expects ${describeIndex(index)}`,
      );
    }
    if (!byName) missing.push(index);
  }
  for (const index of missing) {
    const renamed = take((have) => sameDefinition(have, index));
    if (renamed) differences.push(`${t}: ${describeIndex(index)} is named "${renamed.name}" in the database`);
    else differences.push(`${t}: missing ${describeIndex(index)}`);
  }
  for (const index of unmatched) differences.push(`${t}: extra ${describeIndex(index)}`);
  return differences;
}
