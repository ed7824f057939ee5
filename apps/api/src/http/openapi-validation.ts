import type { RequestHandler, Response } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import type { OpenApiDocument } from "../openapi/load-openapi";
import { withUnknownQueryCheck } from "./unknown-query";

// express-openapi-validator in two halves: route matching (404/405, req.openapi) runs before
// authentication, request validation after it (DECISIONS: authentication, scope, validation).
// Its own security checks stay off: they drop our problem fields and headers.

export type SecurityRequirement = Record<string, string[]>;

export interface OperationInfo {
  /** OpenAPI path template, e.g. `/v1/messages/{id}`. */
  route: string;
  operationId?: string;
  /** Effective requirement: the operation's, else the document's. */
  security: SecurityRequirement[];
  /** False for `security: []` (probes, token-authenticated pages). */
  requiresKey: boolean;
  /** Scopes listed for bearerAuth (any one requirement set satisfying is the OpenAPI rule). */
  scopes: string[];
}

const ROUTE_MATCHING = ["pathParamsMiddleware", "metadataMiddleware"];

export interface OpenApiMiddlewares {
  matchRoute: RequestHandler[];
  validate: RequestHandler[];
}

export function openApiMiddlewares(
  doc: OpenApiDocument,
  options: { validateResponses: boolean },
): OpenApiMiddlewares {
  const handlers = OpenApiValidator.middleware({
    // The validator rewrites the document it is given; /openapi.json keeps serving the original.
    apiSpec: structuredClone(doc) as never,
    validateApiSpec: true,
    validateRequests: { allowUnknownQueryParameters: true, coerceTypes: false, allErrors: true },
    validateResponses: options.validateResponses ? { allErrors: true } : false,
    validateSecurity: false,
    fileUploader: false,
    ignoreUndocumented: false,
  }) as unknown as RequestHandler[];
  const names = handlers.map((h) => h.name);
  if (ROUTE_MATCHING.some((name, i) => names[i] !== name) || !names.includes("requestMiddleware")) {
    throw new Error(`express-openapi-validator middleware order changed: ${names.join(", ")}`);
  }
  return {
    matchRoute: [...handlers.slice(0, ROUTE_MATCHING.length), describeOperation(doc)],
    validate: handlers
      .slice(ROUTE_MATCHING.length)
      .map((handler) =>
        handler.name === "requestMiddleware" ? withUnknownQueryCheck(doc, handler) : handler,
      ),
  };
}

interface OpenApiRequestMetadata {
  openApiRoute: string;
  schema: { operationId?: string; security?: SecurityRequirement[] };
}

function describeOperation(doc: OpenApiDocument): RequestHandler {
  return (req, res, next) => {
    const meta = (req as { openapi?: OpenApiRequestMetadata }).openapi;
    if (meta) {
      const security = meta.schema.security ?? doc.security ?? [];
      const info: OperationInfo = {
        route: meta.openApiRoute,
        operationId: meta.schema.operationId,
        security,
        requiresKey: security.length > 0 && security.every((req) => Object.keys(req).length > 0),
        scopes: [...new Set(security.flatMap((req) => req.bearerAuth ?? []))],
      };
      res.locals.operation = info;
    }
    next();
  };
}

/** The OpenAPI operation the request matched; set for every request that reaches beforeValidation. */
export function getOperation(res: Response): OperationInfo | undefined {
  return res.locals.operation as OperationInfo | undefined;
}
