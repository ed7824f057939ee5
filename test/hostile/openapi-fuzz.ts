// Requests for the fuzz suite (test/hostile/openapi-fuzz.test.ts), drawn with fast-check from the
// OpenAPI document itself: a valid request per operation (path and query parameters and a JSON
// body that follow their schemas), then the same request mutated the ways careless and hostile
// clients mutate them. Nothing here knows an operation by name, so new operations are covered
// the moment they are in the document.
import fc from "fast-check";

/** The parts of an OpenAPI schema the generators below read. */
interface Schema {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}

interface Parameter {
  $ref?: string;
  in?: string;
  name: string;
  schema?: Schema;
  required?: boolean;
  "x-svc-holds-request"?: boolean;
}

interface OperationObject {
  parameters?: Parameter[];
  requestBody?: { $ref?: string; content?: Record<string, { schema?: Schema } | undefined> };
  security?: Record<string, unknown>[];
  [field: string]: unknown;
}

type PathItem = { parameters?: Parameter[] } & Partial<Record<(typeof METHODS)[number], OperationObject>>;

export interface Doc {
  paths: Record<string, PathItem>;
  components: Record<string, Record<string, unknown>>;
}

export interface Operation {
  method: "get" | "post" | "put" | "patch" | "delete";
  path: string;
  operation: OperationObject;
  parameters: Parameter[];
  /** The JSON body's schema (or null for none, or a body of another media type). */
  body: Schema | null;
  form: boolean;
}

export interface FuzzRequest {
  method: string;
  /** Path with its parameters filled in (encoded). */
  url: string;
  /** The body as sent: JSON text, a form, or nothing. */
  body: string | null;
  contentType: string | null;
  /** What the request was, for a failure's message. */
  label: string;
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

export function operationsOf(doc: Doc): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) =>
        resolve(doc, p),
      );
      const content = operation.requestBody ? (resolve(doc, operation.requestBody).content ?? {}) : {};
      const json = content["application/json"]?.schema;
      const form = !json && content["application/x-www-form-urlencoded"] !== undefined;
      out.push({ method, path, operation, parameters, body: json ? resolve(doc, json) : null, form });
    }
  }
  return out;
}

/** Follows `$ref`s (to a schema, a parameter or a request body) into the document's components. */
function resolve<T extends { $ref?: string }>(doc: Doc, schema: T): T {
  let current = schema;
  for (let hops = 0; current && typeof current.$ref === "string" && hops < 20; hops++) {
    const [, , section, name] = current.$ref.split("/");
    current = doc.components[section!]![name!] as T;
  }
  return current;
}

/** A value that follows `schema` (closely enough to pass validation most of the time). */
export function valueOf(doc: Doc, schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.constant(null);
  const s = resolve(doc, schema);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...(s.enum as unknown[]));
  if (s.allOf) return valueOf(doc, mergeAll(doc, s.allOf, s), depth);
  const alternatives = s.oneOf ?? s.anyOf;
  if (alternatives) return fc.oneof(...alternatives.map((o) => valueOf(doc, o, depth + 1)));
  const types: string[] = Array.isArray(s.type)
    ? s.type
    : s.type
      ? [s.type]
      : s.properties
        ? ["object"]
        : ["string"];
  return fc.oneof(...types.map((type) => ofType(doc, s, type, depth)));
}

function mergeAll(doc: Doc, parts: Schema[], outer: Schema): Schema {
  const merged: Schema = { ...outer, allOf: undefined, properties: {}, required: [] };
  for (const part of parts.map((p) => resolve(doc, p))) {
    if (part.allOf) Object.assign(merged, mergeAll(doc, part.allOf, merged));
    Object.assign(merged.properties!, part.properties ?? {});
    merged.required = [...merged.required!, ...(part.required ?? [])];
    if (part.type && !merged.type) merged.type = part.type;
  }
  return merged;
}

function ofType(doc: Doc, s: Schema, type: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: s.minimum ?? 0, max: Math.min(s.maximum ?? 1000, 1_000_000) });
    case "number":
      return fc.double({ min: s.minimum ?? 0, max: s.maximum ?? 1000, noNaN: true });
    case "array": {
      const min = s.minItems ?? 0;
      return fc.array(valueOf(doc, s.items, depth + 1), {
        minLength: min,
        maxLength: Math.max(min, Math.min(s.maxItems ?? 3, 3)),
      });
    }
    case "object":
      return objectOf(doc, s, depth);
    default:
      return stringOf(s);
  }
}

function objectOf(doc: Doc, s: Schema, depth: number): fc.Arbitrary<unknown> {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set<string>(s.required ?? []);
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, schema] of Object.entries(properties)) shape[key] = valueOf(doc, schema, depth + 1);
  const fixed = fc.record(shape, { requiredKeys: [...required].filter((k) => k in shape) });
  const extra =
    s.additionalProperties && typeof s.additionalProperties === "object"
      ? fc.dictionary(
          fc.string({ minLength: 1, maxLength: 8 }),
          valueOf(doc, s.additionalProperties, depth + 1),
          { maxKeys: 2 },
        )
      : fc.constant({});
  return fc.tuple(fixed, extra).map(([a, b]) => ({ ...b, ...a }));
}

function stringOf(s: Schema): fc.Arbitrary<string> {
  switch (s.format) {
    case "date-time":
      return fc
        .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
        .map((d) => d.toISOString());
    case "email":
      return fc.emailAddress();
    case "uri":
      return fc.webUrl();
  }
  if (typeof s.pattern === "string") {
    try {
      const max = Math.min(s.maxLength ?? 40, 40);
      return fc
        .stringMatching(new RegExp(s.pattern))
        .filter((v) => v.length >= (s.minLength ?? 0) && v.length <= Math.max(max, s.minLength ?? 0));
    } catch {
      // A pattern JavaScript cannot read: any text.
    }
  }
  const min = s.minLength ?? 0;
  return fc.string({ minLength: min, maxLength: Math.max(min, Math.min(s.maxLength ?? 20, 20)) });
}

// Strings careless and hostile clients send.
const ODD_STRINGS = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfff",
  "\u202e\u2066evil",
  "\ufeff",
  "a\u0301\u0301\u0301",
  "🦄‍🔥",
  "\r\nX-Injected: 1",
  "../../etc/passwd",
  "%00%2e%2e",
  "' OR '1'='1",
  "{{ 7 * 7 }}{% for x in range(100000) %}{% endfor %}",
  "<script>alert(1)</script>",
  "0000-01-01T00:00:00Z",
  "99999-12-31T23:59:59Z",
  "",
  " ",
];

/** JSON text nested this deep, spliced in where a mutation put DEEP_MARK (JSON.stringify cannot write it). */
const DEEP_MARK = "\u0001svc-deep\u0001";
const DEEP_JSON = `${"[".repeat(5_000)}${"]".repeat(5_000)}`;

type Mutation = (value: unknown, rng: () => number) => unknown;

/** Replaces one node of `value` (picked by `rng`) with what `make` gives. */
function atRandomNode(value: unknown, rng: () => number, make: (node: unknown) => unknown): unknown {
  type Parent = Record<string | number, unknown>;
  const nodes: { parent: Parent; key: string | number }[] = [];
  const walk = (node: unknown, parent: Parent | null, key: string | number, depth: number) => {
    if (parent !== null) nodes.push({ parent, key });
    if (depth > 8 || node === null || typeof node !== "object") return;
    for (const [k, v] of Object.entries(node))
      walk(v, node as Parent, Array.isArray(node) ? Number(k) : k, depth + 1);
  };
  const root = { root: structuredClone(value) };
  walk(root.root, root, "root", 0);
  const pick = nodes[Math.floor(rng() * nodes.length)]!;
  pick.parent[pick.key] = make(pick.parent[pick.key]);
  return root.root;
}

const MUTATIONS: Record<string, Mutation> = {
  "wrong type": (v, rng) =>
    atRandomNode(v, rng, (node) => {
      const options = [42, -1.5, true, null, "text", [], {}, [1, "two"], { nested: { x: 1 } }];
      return options.filter((o) => typeof o !== typeof node)[Math.floor(rng() * 8)] ?? 0;
    }),
  "huge string": (v, rng) => atRandomNode(v, rng, () => "é".repeat(100_000)),
  "huge array": (v, rng) => atRandomNode(v, rng, () => Array.from({ length: 20_000 }, (_, i) => i)),
  "deep value": (v, rng) => atRandomNode(v, rng, () => DEEP_MARK),
  "moderately deep value": (v, rng) =>
    atRandomNode(v, rng, () => JSON.parse(`${"[".repeat(60)}1${"]".repeat(60)}`)),
  "odd unicode": (v, rng) => atRandomNode(v, rng, () => ODD_STRINGS[Math.floor(rng() * ODD_STRINGS.length)]),
  "extreme number": (v, rng) =>
    atRandomNode(v, rng, () => [1e308, -1e308, 2 ** 53 + 1, -0, 1e-320][Math.floor(rng() * 5)]),
  "missing field": (v, rng) => {
    const copy = structuredClone(v);
    if (copy && typeof copy === "object" && !Array.isArray(copy)) {
      const keys = Object.keys(copy);
      if (keys.length) delete (copy as Record<string, unknown>)[keys[Math.floor(rng() * keys.length)]!];
    }
    return copy;
  },
  "extra field": (v) =>
    v && typeof v === "object" && !Array.isArray(v) ? { ...(v as object), unexpected_field: { x: 1 } } : v,
  "not an object": (_v, rng) => ["a string", 7, [1, 2], null, true][Math.floor(rng() * 5)],
};
const MUTATION_NAMES = Object.keys(MUTATIONS);

function serialize(value: unknown): string {
  return JSON.stringify(value).replaceAll(JSON.stringify(DEEP_MARK), DEEP_JSON);
}

interface Drawn {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

function drawnOf(doc: Doc, op: Operation): fc.Arbitrary<Drawn> {
  const params: Record<string, fc.Arbitrary<unknown>> = {};
  const query: Record<string, fc.Arbitrary<unknown>> = {};
  const queryRequired: string[] = [];
  for (const p of op.parameters) {
    if (p.in === "path") params[p.name] = valueOf(doc, p.schema);
    if (p.in === "query" && p["x-svc-holds-request"] === true) {
      // A parameter that holds the request open that long (a wait, a timeout): always its least,
      // so a valid request answers at once instead of outlasting the run.
      query[p.name] = fc.constant(resolve(doc, p.schema ?? {}).minimum);
      queryRequired.push(p.name);
    } else if (p.in === "query") {
      query[p.name] = valueOf(doc, p.schema);
      if (p.required) queryRequired.push(p.name);
    }
  }
  return fc.record({
    params: fc.record(params),
    query: fc.record(query, { requiredKeys: queryRequired }),
    body: op.body ? valueOf(doc, op.body) : fc.constant(undefined),
  });
}

/** encodeURIComponent, but half a surrogate pair goes out as the bytes UTF-8 would never hold. */
function encode(value: string): string {
  return value
    .split(/([\uD800-\uDFFF])/u)
    .map((part, i) => (i % 2 === 1 ? "%ED%A0%80" : encodeURIComponent(part)))
    .join("");
}

function requestOf(op: Operation, drawn: Drawn, label: string, rawPathValue?: string): FuzzRequest {
  let url = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    encode(rawPathValue ?? String(drawn.params[name] ?? "x")),
  );
  const query = Object.entries(drawn.query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encode(k)}=${encode(typeof v === "string" ? v : JSON.stringify(v))}`);
  if (query.length) url += `?${query.join("&")}`;
  if (op.form) {
    const form = new URLSearchParams({
      From: "+15551234567",
      Body: String(drawn.body ?? "STOP"),
      MessageSid: "SM1",
    });
    return {
      method: op.method.toUpperCase(),
      url,
      body: form.toString(),
      contentType: "application/x-www-form-urlencoded",
      label,
    };
  }
  const hasBody = op.body !== null && drawn.body !== undefined;
  return {
    method: op.method.toUpperCase(),
    url,
    body: hasBody ? serialize(drawn.body) : null,
    contentType: hasBody ? "application/json" : null,
    label,
  };
}

/**
 * For one operation: `valid` requests that follow the document, then `mutated` ones (each a
 * valid request with one mutation, a path parameter made odd, or a query value made odd).
 */
export function requestsFor(
  doc: Doc,
  op: Operation,
  counts: { valid: number; mutated: number; seed: number },
): FuzzRequest[] {
  const name = `${op.method.toUpperCase()} ${op.path}`;
  const drawn = fc.sample(drawnOf(doc, op), { numRuns: counts.valid + counts.mutated, seed: counts.seed });
  const rng = mulberry32(counts.seed);
  const out: FuzzRequest[] = [];
  drawn.forEach((d, i) => {
    if (i < counts.valid) {
      out.push(requestOf(op, d, `${name} valid #${i}`));
      return;
    }
    const hasPathParams = Object.keys(d.params).length > 0;
    const choice = Math.floor(rng() * (MUTATION_NAMES.length + (hasPathParams ? 2 : 1)));
    if (choice === MUTATION_NAMES.length) {
      const odd = ODD_STRINGS[Math.floor(rng() * ODD_STRINGS.length)]!;
      const query = Object.fromEntries(Object.keys(d.query).map((k) => [k, odd]));
      out.push(
        requestOf(op, { ...d, query: { ...query, limit: odd } }, `${name} odd query ${JSON.stringify(odd)}`),
      );
    } else if (choice > MUTATION_NAMES.length) {
      const odd = [...ODD_STRINGS, "x".repeat(5_000)][Math.floor(rng() * (ODD_STRINGS.length + 1))]!;
      out.push(requestOf(op, d, `${name} odd path ${JSON.stringify(odd.slice(0, 40))}`, odd));
    } else {
      const mutation = MUTATION_NAMES[choice]!;
      const body = op.body ? MUTATIONS[mutation]!(d.body ?? {}, rng) : d.body;
      out.push(requestOf(op, { ...d, body }, `${name} ${mutation}`));
    }
  });
  return out;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
