import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import type { ValidationIssue } from "@svc/core";
import type { JsonSchema } from "./json-schema";

// Tool arguments are checked against the tool's input schema before anything is called, with the
// options the API's request validation uses (defaults filled in, no type coercion, every error),
// and refused as the API refuses a body: 422 with `errors[{loc, msg, type}]`, `loc` starting at
// `arguments` (docs/api.md "Errors").

const ajv = new Ajv({ strict: false, allErrors: true, useDefaults: true, strictNumbers: true });
addFormats(ajv);

const compiled = new WeakMap<JsonSchema, ValidateFunction>();

const KEYWORD_TYPE: Record<string, string> = {
  required: "missing",
  additionalProperties: "additional_properties",
};
const KEYWORD_MSG: Record<string, string> = {
  missing: "is required",
  additional_properties: "unknown field",
};

const snakeCase = (keyword: string) => keyword.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function issueOf(error: ErrorObject): ValidationIssue {
  const path = error.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const extra = params.missingProperty ?? params.additionalProperty;
  const type = KEYWORD_TYPE[error.keyword] ?? snakeCase(error.keyword);
  return {
    loc: ["arguments", ...path, ...(extra === undefined ? [] : [extra])],
    msg: KEYWORD_MSG[type] ?? error.message ?? "is invalid",
    type,
  };
}

/** The issues of `args` against `schema` (empty when valid); fills in defaults in place. */
export function checkToolInput(schema: JsonSchema, args: Record<string, unknown>): ValidationIssue[] {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  if (validate(args)) return [];
  // `oneOf` branches report one error each plus the oneOf itself; keep what names a place once.
  const seen = new Set<string>();
  return (validate.errors ?? []).map(issueOf).filter((issue) => {
    const key = `${issue.loc.join(".")} ${issue.msg}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}
