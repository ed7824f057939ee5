import type { RequestHandler, Response } from "express";
import { createRequestAjv } from "express-openapi-validator/dist/framework/ajv";
import { ajvErrorsToValidatorError, augmentAjvErrors } from "express-openapi-validator/dist/middlewares/util";
import type { OpenApiDocument } from "../openapi/load-openapi";
import type { ProblemInput } from "./problem";
import { REQUEST_FORMATS } from "./request-formats";
import { findUnstorableText, unstorableIssue } from "./unstorable-text";
import { summarizeIssues, toValidationIssues } from "./validation-issues";

// Batch operations (docs/events.md "Many events in one request") name a body property with
// `x-svc-validate-each: <property>`: its items are validated one by one against the item schema
// the document gives, so one bad item is that item's 422 and not the whole request's. The request
// validator sees the list with items of any shape; this middleware, right after it, validates
// each item with the same ajv setup and the document's own item schema, so docs and behaviour agree.

const VALIDATE_EACH = "x-svc-validate-each";

type Schema = Record<string, unknown>;
type Operation = Schema & { [VALIDATE_EACH]?: string };

interface OpenApiRequest {
  openapi?: { schema?: Operation };
  body?: unknown;
}

const METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

function resolve(doc: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  const ref = schema?.$ref;
  if (typeof ref !== "string") return schema;
  const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(ref) ?? [];
  return resolve(doc, doc.components?.[section ?? ""]?.[name ?? ""] as Schema | undefined);
}

function jsonBodySchema(doc: OpenApiDocument, op: Operation): Schema | undefined {
  const body = resolve(doc, op.requestBody as Schema | undefined);
  const content = body?.content as Record<string, { schema?: Schema }> | undefined;
  return resolve(doc, content?.["application/json"]?.schema);
}

function eachOperation(doc: OpenApiDocument, fn: (op: Operation) => void): void {
  for (const item of Object.values(doc.paths)) {
    for (const method of METHODS) {
      const op = (item as Record<string, Operation | undefined>)[method];
      if (op?.[VALIDATE_EACH]) fn(op);
    }
  }
}

/**
 * The document the request validator gets: a copy in which every `x-svc-validate-each` list
 * accepts items of any shape (the body schema is inlined into the operation, so nothing else
 * that shares the component changes).
 */
export function requestValidatorDocument(doc: OpenApiDocument): OpenApiDocument {
  const copy = structuredClone(doc);
  eachOperation(copy, (op) => {
    const property = op[VALIDATE_EACH]!;
    const schema = structuredClone(jsonBodySchema(copy, op));
    const list = schema?.properties as Record<string, Schema> | undefined;
    if (!schema || !list?.[property]?.items) {
      throw new Error(`${VALIDATE_EACH}: the JSON body has no list '${property}' with items`);
    }
    list[property] = { ...list[property], items: {} };
    const body = resolve(copy, op.requestBody as Schema) as { content: Record<string, { schema: Schema }> };
    op.requestBody = { ...body, content: { ...body.content, "application/json": { schema } } };
  });
  return copy;
}

type ItemCheck = (item: unknown, loc: (string | number)[]) => ProblemInput | null;

/** Per operation: the body property whose items are checked, and the check. */
function compileItemChecks(doc: OpenApiDocument): Map<string, { property: string; check: ItemCheck }> {
  // The request validator's ajv with the same options (apps/api/src/http/openapi-validation.ts).
  const ajv = createRequestAjv(
    structuredClone(doc) as never,
    {
      allErrors: true,
      coerceTypes: false,
      strict: false,
      strictNumbers: true,
      strictTuples: true,
      allowUnionTypes: false,
      validateSchema: false,
      useDefaults: true,
      removeAdditional: false,
      validateFormats: true,
      formats: REQUEST_FORMATS,
      serDesMap: {},
      ajvFormats: { mode: "fast" },
    } as never,
  );
  const checks = new Map<string, { property: string; check: ItemCheck }>();
  eachOperation(doc, (op) => {
    const property = op[VALIDATE_EACH]!;
    const items = (jsonBodySchema(doc, op)?.properties as Record<string, Schema>)[property]!.items as Schema;
    const validate = ajv.compile(items);
    const check: ItemCheck = (item, loc) => {
      if (!validate(item)) {
        const pointer = `/${loc.join("/")}`;
        const { errors } = ajvErrorsToValidatorError(400, augmentAjvErrors(validate.errors ?? []));
        const issues = toValidationIssues(errors.map((e) => ({ ...e, path: `${pointer}${e.path}` })));
        if (issues) return { status: 422, detail: summarizeIssues(issues), errors: issues };
        return { status: 422, detail: "the item is not valid" };
      }
      const found = findUnstorableText(item);
      if (!found) return null;
      const at = [...loc, ...found.loc];
      return {
        status: 422,
        detail: `${at.join(".")}: ${found.msg}`,
        errors: [unstorableIssue(at, found.msg)],
      };
    };
    checks.set(String(op.operationId), { property, check });
  });
  return checks;
}

/**
 * Runs after request validation: for an operation with `x-svc-validate-each`, checks every item
 * of that list and keeps the problems by index for the route (itemProblems).
 */
export function validateEachItem(doc: OpenApiDocument): RequestHandler {
  const checks = compileItemChecks(doc);
  return (req, res, next) => {
    const op = (req as unknown as OpenApiRequest).openapi?.schema;
    const entry = op?.[VALIDATE_EACH] ? checks.get(String(op.operationId)) : undefined;
    if (!entry) return next();
    const list = (req.body as Record<string, unknown>)[entry.property] as unknown[];
    const problems = new Map<number, ProblemInput>();
    list.forEach((item, i) => {
      const problem = entry.check(item, ["body", entry.property, i]);
      if (problem) problems.set(i, problem);
    });
    res.locals.itemProblems = problems;
    res.locals.validatedEachProperty = entry.property;
    next();
  };
}

/** The problems validateEachItem found, by item index (empty when every item is valid). */
export function itemProblems(res: Response): Map<number, ProblemInput> {
  return (res.locals.itemProblems as Map<number, ProblemInput> | undefined) ?? new Map();
}
