import { OpenAPISchemaValidator } from "express-openapi-validator/dist/framework/openapi.schema.validator";
import type { OpenApiDocument } from "./load-openapi";

// The validator checks the document lazily (the first request would be a 500); main.ts and tests
// call this at start so a broken path file stops the process with the offending location.

// Compiling the OpenAPI meta-schema is slow; one validator per version is enough.
const validators = new Map<string, OpenAPISchemaValidator>();

export function assertValidOpenApiDocument(doc: OpenApiDocument): void {
  let validator = validators.get(doc.openapi);
  if (!validator) {
    validator = new OpenAPISchemaValidator({ version: doc.openapi, validateApiSpec: true });
    validators.set(doc.openapi, validator);
  }
  const { errors } = validator.validate(structuredClone(doc) as never);
  if (errors && errors.length > 0) {
    const lines = errors.slice(0, 10).map((e) => `${e.instancePath || "/"}: ${e.message ?? e.keyword}`);
    throw new Error(`Invalid OpenAPI document:\n${lines.join("\n")}`);
  }
}
