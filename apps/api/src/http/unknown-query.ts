import type { RequestHandler } from "express";
import { HttpError } from "express-openapi-validator/dist/framework/types";
import { AppError, type ValidationIssue } from "@svc/core";
import type { OpenApiDocument } from "../openapi/load-openapi";
import { summarizeIssues, toValidationIssues } from "./validation-issues";

// The validator stops at the first unknown query parameter before checking anything else; this
// check runs beside it instead, so one 422 lists unknown parameters and every other issue.

interface Parameter {
  name?: string;
  in?: string;
  $ref?: string;
  style?: string;
  explode?: boolean;
  schema?: { type?: string };
}

/** Any name is declared by a free-form object parameter (`style: form`, `explode: true`, an object). */
const ANY_NAME = "*";
const isFreeForm = (p: Parameter) =>
  p.schema?.type === "object" && (p.style ?? "form") === "form" && (p.explode ?? true);

function resolve(doc: OpenApiDocument, param: Parameter): Parameter {
  const name = param.$ref?.match(/^#\/components\/parameters\/(.+)$/)?.[1];
  return name ? ((doc.components?.parameters?.[name] as Parameter | undefined) ?? param) : param;
}

function declaredQueryNames(doc: OpenApiDocument, route: string, method: string): Set<string> {
  const item = doc.paths[route] ?? {};
  const operation = (item[method.toLowerCase()] ?? {}) as { parameters?: Parameter[] };
  const params = [...((item.parameters as Parameter[] | undefined) ?? []), ...(operation.parameters ?? [])];
  return new Set(
    params
      .map((p) => resolve(doc, p))
      .filter((p) => p.in === "query")
      .map((p) => (isFreeForm(p) ? ANY_NAME : (p.name ?? ""))),
  );
}

export function withUnknownQueryCheck(doc: OpenApiDocument, validateRequest: RequestHandler): RequestHandler {
  const declared = new Map<string, Set<string>>(); // per operation of the document
  const queryNames = (route: string, method: string) => {
    const key = `${method} ${route}`;
    let names = declared.get(key);
    if (!names) declared.set(key, (names = declaredQueryNames(doc, route, method)));
    return names;
  };
  return (req, res, next) => {
    const route = (req as { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute;
    const names = route === undefined ? undefined : queryNames(route, req.method);
    const known = names?.has(ANY_NAME) ? undefined : names;
    const unknown: ValidationIssue[] = known
      ? Object.keys(req.query as object)
          .filter((name) => !known.has(name))
          .map((name) => ({ loc: ["query", name], msg: "unknown parameter", type: "additional_properties" }))
      : [];
    if (unknown.length === 0) return validateRequest(req, res, next);
    return validateRequest(req, res, (err?: unknown) => {
      const others =
        err instanceof HttpError && err.status === 400
          ? toValidationIssues(err.errors)
          : err
            ? undefined
            : [];
      if (others === undefined) return next(err);
      const issues = [...unknown, ...others];
      next(new AppError("validation", summarizeIssues(issues), { errors: issues }));
    });
  };
}
