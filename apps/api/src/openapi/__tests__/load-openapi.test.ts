import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { assertValidOpenApiDocument } from "../assert-valid";
import { loadOpenApiDocument, mergeFragment, type OpenApiDocument } from "../load-openapi";

function tempDoc(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), "openapi-"));
  mkdirSync(path.join(dir, "paths"));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

const ROOT =
  "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n    A: {type: string}\n";

describe("loadOpenApiDocument", () => {
  it("merges path files in name order, with their components", () => {
    const dir = tempDoc({
      "openapi.yaml": ROOT,
      "paths/b.yaml": "paths:\n  /b: {get: {responses: {'204': {description: x}}}}\n",
      "paths/a.yaml":
        "paths:\n  /a: {get: {responses: {'204': {description: x}}}}\ncomponents:\n  schemas:\n    B: {type: integer}\n  parameters:\n    P: {name: p, in: query}\n",
    });
    const doc = loadOpenApiDocument(dir);
    expect(Object.keys(doc.paths)).toEqual(["/a", "/b"]);
    expect(doc.components).toEqual({
      schemas: { A: { type: "string" }, B: { type: "integer" } },
      parameters: { P: { name: "p", in: "query" } },
    });
  });

  it.each([
    [
      "a path",
      "paths:\n  /x: {}\n",
      "paths:\n  /x: {}\n",
      "OpenAPI path /x defined twice (again in paths/2.yaml)",
    ],
    [
      "a component",
      "components: {schemas: {A: {}}}\n",
      "paths: {}\n",
      "OpenAPI components.schemas.A defined twice (again in paths/1.yaml)",
    ],
    [
      "an unknown section",
      "info: {}\n",
      "paths: {}\n",
      "paths/1.yaml: only paths and components are allowed, found info",
    ],
  ])("refuses %s defined twice or out of place", (_case, one, two, message) => {
    const dir = tempDoc({ "openapi.yaml": ROOT, "paths/1.yaml": one, "paths/2.yaml": two });
    expect(() => loadOpenApiDocument(dir)).toThrow(message);
  });

  it("returns a fresh document each time", () => {
    const a = loadOpenApiDocument();
    a.paths["/mutated"] = {};
    expect(loadOpenApiDocument().paths["/mutated"]).toBeUndefined();
  });
});

// Guard for every path added later: request bodies reject unknown fields (docs/api.md,
// "Request rules"), unless an operation opts out with `x-svc-allow-unknown-fields: true`
// (provider webhooks, hosted forms).
describe("the shipped document", () => {
  const doc = loadOpenApiDocument();

  type Schema = Record<string, unknown>;
  const resolve = (schema: Schema): Schema => {
    const ref = schema.$ref;
    if (typeof ref !== "string") return schema;
    const [, section, name] = ref.match(/^#\/components\/(\w+)\/(.+)$/) ?? [];
    return resolve((doc.components?.[section ?? ""]?.[name ?? ""] ?? {}) as Schema);
  };

  function openObjects(schema: Schema, where: string, out: string[]): void {
    const s = resolve(schema);
    const props = s.properties as Record<string, Schema> | undefined;
    const composed = ["allOf", "oneOf", "anyOf"].some((k) => Array.isArray(s[k]));
    const isObject = s.type === "object" || (props !== undefined && !composed);
    if (isObject && s.additionalProperties !== false && s.unevaluatedProperties !== false) out.push(where);
    for (const [name, prop] of Object.entries(props ?? {})) openObjects(prop, `${where}.${name}`, out);
    if (s.items && typeof s.items === "object") openObjects(s.items as Schema, `${where}[]`, out);
    for (const key of ["oneOf", "anyOf"]) {
      for (const [i, sub] of ((s[key] as Schema[] | undefined) ?? []).entries())
        openObjects(sub, `${where}.${key}[${i}]`, out);
    }
  }

  it("is OpenAPI 3.1 with the probes", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/healthz", "/readyz"]));
  });

  it("closes every request body object (additionalProperties: false)", () => {
    const open: string[] = [];
    for (const [route, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, Schema>)) {
        if (op["x-svc-allow-unknown-fields"] === true) continue;
        const body = op.requestBody ? resolve(op.requestBody as Schema) : undefined;
        const content = (body?.content ?? {}) as Record<string, { schema?: Schema }>;
        for (const [type, media] of Object.entries(content)) {
          if (media.schema) openObjects(media.schema, `${method.toUpperCase()} ${route} ${type}`, open);
        }
      }
    }
    expect(open).toEqual([]);
  });

  it("detects an open request body", () => {
    const probe: OpenApiDocument = { openapi: "3.1.0", paths: {} };
    mergeFragment(
      probe,
      {
        paths: {
          "/x": {
            post: { requestBody: { content: { "application/json": { schema: { type: "object" } } } } },
          },
        },
      },
      "t",
    );
    const open: string[] = [];
    const schema = (
      probe.paths["/x"]?.post as { requestBody: { content: Record<string, { schema: Schema }> } }
    ).requestBody.content["application/json"]?.schema;
    openObjects(schema ?? {}, "POST /x", open);
    expect(open).toEqual(["POST /x"]);
  });
});

describe("assertValidOpenApiDocument", () => {
  it("accepts the shipped document", () => {
    expect(() => assertValidOpenApiDocument(loadOpenApiDocument())).not.toThrow();
  });

  it("names the broken location", () => {
    const doc = loadOpenApiDocument();
    doc.paths["/broken"] = { get: { responses: { "200": { content: {} } } } };
    expect(() => assertValidOpenApiDocument(doc)).toThrow(
      /Invalid OpenAPI document:\n\/paths\/~1broken\/get\/responses\/200: /,
    );
  });
});
