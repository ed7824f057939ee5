import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";

// Builds the one OpenAPI document from openapi.yaml plus every paths/*.yaml fragment, so each
// resource keeps its paths and schemas in its own file while validator and docs see one document.

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  security?: Record<string, string[]>[];
  [key: string]: unknown;
}

interface Fragment {
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
}

// YAML is not copied by tsc: from dist/openapi, read the sources in ../../src/openapi.
function defaultDir(): string {
  const candidates = [__dirname, path.resolve(__dirname, "../../src/openapi")];
  const found = candidates.find((dir) => existsSync(path.join(dir, "openapi.yaml")));
  if (!found) throw new Error(`openapi.yaml not found in ${candidates.join(" or ")}`);
  return found;
}

function readYaml<T>(file: string): T {
  return parse(readFileSync(file, "utf8")) as T;
}

/** Merges `fragment` into `doc`; throws on a path or component defined twice. */
export function mergeFragment(doc: OpenApiDocument, fragment: Fragment, source: string): void {
  for (const [route, item] of Object.entries(fragment.paths ?? {})) {
    if (doc.paths[route]) throw new Error(`OpenAPI path ${route} defined twice (again in ${source})`);
    doc.paths[route] = item;
  }
  for (const [section, entries] of Object.entries(fragment.components ?? {})) {
    const target = ((doc.components ??= {})[section] ??= {});
    for (const [name, value] of Object.entries(entries)) {
      if (name in target)
        throw new Error(`OpenAPI components.${section}.${name} defined twice (again in ${source})`);
      target[name] = value;
    }
  }
  const unknown = Object.keys(fragment).filter((key) => key !== "paths" && key !== "components");
  if (unknown.length > 0)
    throw new Error(`${source}: only paths and components are allowed, found ${unknown.join(", ")}`);
}

/** A fresh document on every call (callers may mutate it, e.g. tests adding a path). */
export function loadOpenApiDocument(dir: string = defaultDir()): OpenApiDocument {
  const doc = readYaml<OpenApiDocument>(path.join(dir, "openapi.yaml"));
  doc.paths ??= {};
  const pathsDir = path.join(dir, "paths");
  const files = existsSync(pathsDir)
    ? readdirSync(pathsDir)
        .filter((f) => /\.ya?ml$/.test(f))
        .sort()
    : [];
  for (const file of files)
    mergeFragment(doc, readYaml<Fragment>(path.join(pathsDir, file)), `paths/${file}`);
  return doc;
}
