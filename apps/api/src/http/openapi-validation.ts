import type { RequestHandler, Response } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { describeOperationAccess, type OperationAccess, type SecurityRequirement } from "@svc/core";
import type { OpenApiDocument } from "../openapi/load-openapi";
import { REQUEST_FORMATS } from "./request-formats";
import { withUnknownQueryCheck } from "./unknown-query";
import { requestValidatorDocument } from "./validate-each";

// express-openapi-validator in two halves: route matching (404/405, req.openapi) runs before
// authentication, request validation after it (docs/api.md, "Request rules").
// Its own security checks stay off: they drop our problem fields and headers.

export type { SecurityRequirement };

export interface OperationInfo extends OperationAccess {
  /** OpenAPI path template, e.g. `/v1/messages/{id}`. */
  route: string;
  operationId?: string;
  /** Effective requirement: the operation's, else the document's. */
  security: SecurityRequirement[];
}

const ROUTE_MATCHING = ["pathParamsMiddleware", "metadataMiddleware"];
/** A no-op with `validateSecurity: false`, but still a promise per request: left out. */
const SECURITY = "securityMiddleware";

export interface OpenApiMiddlewares {
  matchRoute: RequestHandler[];
  validate: RequestHandler[];
}

export function openApiMiddlewares(
  doc: OpenApiDocument,
  options: { validateResponses: boolean },
): OpenApiMiddlewares {
  const handlers = OpenApiValidator.middleware({
    // The validator rewrites the document it is given (a copy); /openapi.json keeps serving the
    // original. Lists validated item by item are left to validateEachItem (validate-each.ts).
    apiSpec: requestValidatorDocument(doc) as never,
    validateApiSpec: true,
    validateRequests: { allowUnknownQueryParameters: true, coerceTypes: false, allErrors: true },
    validateResponses: options.validateResponses ? { allErrors: true } : false,
    validateSecurity: false,
    fileUploader: false,
    ignoreUndocumented: false,
    formats: REQUEST_FORMATS as never,
  }) as unknown as RequestHandler[];
  const names = handlers.map((h) => h.name);
  if (ROUTE_MATCHING.some((name, i) => names[i] !== name) || !names.includes("requestMiddleware")) {
    throw new Error(`express-openapi-validator middleware order changed: ${names.join(", ")}`);
  }
  const [installPathParams, matchMetadata] = handlers as [RequestHandler, RequestHandler];
  return {
    matchRoute: [
      untilFirstSuccess(installPathParams),
      memoizedRouteMatch(matchMetadata),
      describeOperation(doc),
    ],
    validate: handlers
      .slice(ROUTE_MATCHING.length)
      .filter((handler) => handler.name !== SECURITY)
      .map((handler) =>
        handler.name === "requestMiddleware" ? withUnknownQueryCheck(doc, handler) : handler,
      ),
  };
}

interface OpenApiRequestMetadata {
  openApiRoute: string;
  pathParams: Record<string, string>;
  schema: { operationId?: string; security?: SecurityRequirement[]; "x-svc-agent-keys"?: unknown };
}

type WithOpenApi = { openapi?: OpenApiRequestMetadata; params: Record<string, string> };

// The validator installs `app.param` hooks on its first request and only calls next() after
// that, through a promise: once it has succeeded it is skipped.
function untilFirstSuccess(handler: RequestHandler): RequestHandler {
  let done = false;
  return (req, res, next) => {
    if (done) return next();
    handler(req, res, (err?: unknown) => {
      if (err === undefined) done = true;
      next(err);
    });
  };
}

const MATCHES_KEPT = 2_000;

/**
 * The validator's route matching compiles every path template of the document, per request, until
 * one matches. The outcome depends only on method and path, so it is remembered (404/405 are not;
 * at most MATCHES_KEPT paths, then it starts over).
 */
function memoizedRouteMatch(handler: RequestHandler): RequestHandler {
  const matches = new Map<string, OpenApiRequestMetadata | null>();
  return (req, res, next) => {
    const path = req.originalUrl;
    const query = path.indexOf("?");
    const key = `${req.method} ${query < 0 ? path : path.slice(0, query)}`;
    const known = matches.get(key);
    if (known !== undefined) {
      if (known !== null) {
        const pathParams = { ...known.pathParams };
        (req as unknown as WithOpenApi).openapi = { ...known, pathParams };
        (req as unknown as WithOpenApi).params = pathParams;
      }
      return next();
    }
    handler(req, res, (err?: unknown) => {
      if (err === undefined) {
        if (matches.size >= MATCHES_KEPT) matches.clear();
        const meta = (req as unknown as WithOpenApi).openapi;
        matches.set(key, meta ? { ...meta, pathParams: { ...meta.pathParams } } : null);
      }
      next(err);
    });
  };
}

function describeOperation(doc: OpenApiDocument): RequestHandler {
  const described = new WeakMap<object, OperationInfo>(); // per operation of the document
  const describe = (meta: OpenApiRequestMetadata): OperationInfo => {
    const security = meta.schema.security ?? doc.security ?? [];
    return {
      route: meta.openApiRoute,
      operationId: meta.schema.operationId,
      security,
      ...describeOperationAccess(meta.schema, doc.security),
    };
  };
  return (req, res, next) => {
    const meta = (req as unknown as WithOpenApi).openapi;
    if (meta) {
      let info = described.get(meta.schema);
      if (!info) described.set(meta.schema, (info = describe(meta)));
      res.locals.operation = info;
    }
    next();
  };
}

/** The OpenAPI operation the request matched; set for every request that reaches beforeValidation. */
export function getOperation(res: Response): OperationInfo | undefined {
  return res.locals.operation as OperationInfo | undefined;
}
