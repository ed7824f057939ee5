// Prisma's DMMF leaves out a partial index's `where: raw("…")` (preview feature `partialIndexes`),
// so drift reads the predicates from the schema's text. Each must be written as Postgres prints it
// (`pg_get_expr`), which `prisma migrate diff` also needs to see no change (docs/decisions.md
// "Indexes of messages").

/** `Model:field,field` → the predicate of that model's `@@index` or `@@unique` on those fields. */
export type PartialIndexPredicates = Map<string, string>;

export const partialIndexKey = (model: string, fields: readonly string[]) => `${model}:${fields.join(",")}`;

const MODEL_BLOCK = /^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm;
const BLOCK_INDEX = /^\s*@@(?:index|unique)\(\s*\[([^\]]*)\][^\n]*?where:\s*raw\("((?:[^"\\]|\\.)*)"\)/gm;

export function partialIndexPredicates(schemaText: string): PartialIndexPredicates {
  const predicates: PartialIndexPredicates = new Map();
  for (const [, model, body] of schemaText.matchAll(MODEL_BLOCK)) {
    for (const [, fieldList, raw] of body!.matchAll(BLOCK_INDEX)) {
      const fields = fieldList!.split(",").map((field) => field.trim().replace(/\(.*$/, ""));
      predicates.set(partialIndexKey(model!, fields), JSON.parse(`"${raw}"`) as string);
    }
  }
  return predicates;
}
