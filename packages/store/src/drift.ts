import { readFile } from "node:fs/promises";
import { withClient } from "./one-shot-client";
import { compareShapes } from "./drift/compare";
import { expectedShape, type DmmfDatamodel } from "./drift/expected";
import { introspectShape } from "./drift/introspect";
import { partialIndexPredicates, type PartialIndexPredicates } from "./drift/partial-indexes";

export interface DriftResult {
  ok: boolean;
  differences: string[];
}

export interface CheckDriftOptions {
  databaseUrl: string;
  schemaPath: string;
}

/**
 * Compares prisma/schema.prisma with a migrated database without Prisma's native engine.
 * Dev/test/svcctl only: it needs the `@prisma/prisma-schema-wasm` devDependency, loaded on first call.
 */
export async function checkDrift(options: CheckDriftOptions): Promise<DriftResult> {
  const { datamodel, predicates } = await loadSchema(options.schemaPath);
  return withClient(options.databaseUrl, async (client) => {
    const differences = compareShapes(expectedShape(datamodel, predicates), await introspectShape(client));
    return { ok: differences.length === 0, differences };
  });
}

/** The schema file read once: Prisma's DMMF, and the partial-index predicates the DMMF leaves out. */
export async function loadSchema(
  schemaPath: string,
): Promise<{ datamodel: DmmfDatamodel; predicates: PartialIndexPredicates }> {
  const prismaSchema = await readFile(schemaPath, "utf8");
  // Lazy on purpose: the running service never loads the wasm package (a devDependency).
  const wasm = (await import("@prisma/prisma-schema-wasm")) as { get_dmmf(params: string): string };
  const { datamodel } = JSON.parse(wasm.get_dmmf(JSON.stringify({ prismaSchema }))) as {
    datamodel: DmmfDatamodel;
  };
  return { datamodel, predicates: partialIndexPredicates(prismaSchema) };
}
