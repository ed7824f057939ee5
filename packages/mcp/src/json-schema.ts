import type { OpenApiDocumentJson } from "@svc/client";

// OpenAPI 3.1 schema objects are JSON Schema (2020-12) with a few OpenAPI-only keywords. A tool's
// input and output schema is one of them, made self-contained: every `#/components/schemas/…`
// reference is replaced by the schema it names (MCP clients and the models behind them read inline
// schemas best), and the OpenAPI-only keywords are dropped. Nothing is written by hand: a field
// added to the document reaches the tools at the next `npm run client:generate`.

export type JsonSchema = Record<string, unknown>;

const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;
const OPENAPI_ONLY = new Set(["discriminator", "xml", "externalDocs", "example"]);

/** `#/components/schemas/<name>`, inlined; throws on an unknown name or a recursive schema. */
export function componentSchema(doc: OpenApiDocumentJson, name: string): JsonSchema {
  return inline(doc, { $ref: `#/components/schemas/${name}` }, []) as JsonSchema;
}

/** Any schema of the document (e.g. one property of a component), its references inlined. */
export function inlineSchema(doc: OpenApiDocumentJson, schema: unknown): JsonSchema {
  return inline(doc, schema, []) as JsonSchema;
}

function inline(doc: OpenApiDocumentJson, value: unknown, seen: string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => inline(doc, item, seen));
  if (value === null || typeof value !== "object") return value;
  const object = value as Record<string, unknown>;
  const ref = typeof object.$ref === "string" ? COMPONENT_REF.exec(object.$ref) : null;
  if (ref) {
    const name = decodeURIComponent(ref[1]!);
    if (seen.includes(name)) throw new Error(`schema ${[...seen, name].join(" -> ")} is recursive`);
    const target = doc.components.schemas[name];
    if (target === undefined) throw new Error(`no schema components.schemas.${name}`);
    // Keywords beside a $ref (a description, say) apply too (JSON Schema 2020-12).
    const { $ref: _ref, ...siblings } = object;
    const resolved = inline(doc, target, [...seen, name]) as Record<string, unknown>;
    return Object.keys(siblings).length === 0
      ? resolved
      : { ...resolved, ...(inline(doc, siblings, seen) as object) };
  }
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(object)) {
    if (OPENAPI_ONLY.has(key)) continue;
    // `properties` and `patternProperties` map names to schemas: a property may be called `xml`.
    out[key] =
      key === "properties" || key === "patternProperties" || key === "$defs"
        ? Object.fromEntries(
            Object.entries(child as Record<string, unknown>).map(([name, schema]) => [
              name,
              inline(doc, schema, seen),
            ]),
          )
        : inline(doc, child, seen);
  }
  return out;
}
