import type { ValidationIssue } from "@svc/core";

// express-openapi-validator reports request errors as {path: "/body/name", message, errorCode:
// "<ajv keyword>.openapi.validation"}; svc answers {loc: ["body","name"], msg, type} (docs/api.md, "Errors").

export interface ValidatorErrorItem {
  path: string;
  message: string;
  errorCode?: string;
}

const LOC_ROOT: Record<string, string> = {
  body: "body",
  query: "query",
  params: "path",
  headers: "header",
  cookies: "cookie",
};

const KEYWORD_TYPE: Record<string, string> = {
  required: "missing",
  additionalProperties: "additional_properties",
  unevaluatedProperties: "additional_properties",
};

const KEYWORD_MSG: Record<string, string> = {
  missing: "is required",
  additional_properties: "unknown field",
};

const snakeCase = (keyword: string): string => keyword.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const unescapePointer = (segment: string): string => segment.replace(/~1/g, "/").replace(/~0/g, "~");

function issueType(item: ValidatorErrorItem): string {
  const keyword = item.errorCode?.split(".")[0];
  if (keyword) return KEYWORD_TYPE[keyword] ?? snakeCase(keyword);
  // Errors raised outside ajv carry no errorCode; only their message tells them apart.
  if (item.message.startsWith("Unknown query parameter")) return "additional_properties";
  if (item.message.startsWith("Empty value")) return "empty";
  return "invalid";
}

/** Maps validator items to issues; undefined when any item is not about a request part. */
export function toValidationIssues(items: ValidatorErrorItem[]): ValidationIssue[] | undefined {
  const issues: ValidationIssue[] = [];
  for (const item of items) {
    const [root, ...rest] = item.path.split("/").slice(1).map(unescapePointer);
    const locRoot = root === undefined ? undefined : LOC_ROOT[root];
    if (!locRoot) return undefined;
    const type = issueType(item);
    const loc = [locRoot, ...rest.map((s) => (/^\d+$/.test(s) ? Number(s) : s))];
    const msg =
      type === "additional_properties" && locRoot !== "body"
        ? "unknown parameter"
        : (KEYWORD_MSG[type] ?? item.message);
    issues.push({ loc, msg, type });
  }
  return issues;
}

export function summarizeIssues(issues: ValidationIssue[], max = 5): string {
  const parts = issues.slice(0, max).map((i) => `${i.loc.join(".")}: ${i.msg}`);
  const more = issues.length > max ? ` (and ${issues.length - max} more)` : "";
  return `Request validation failed: ${parts.join("; ")}${more}`;
}
