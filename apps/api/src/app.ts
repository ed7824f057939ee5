import express, { type Express, type RequestHandler, type Router } from "express";
import { AppError } from "@svc/core";
import type { Logger } from "@svc/log";
import { holdBodyError, jsonBodyParser, raiseHeldBodyError } from "./http/body-parsing";
import { docsRouter } from "./http/docs";
import { errorHandler } from "./http/error-handler";
import { openApiMiddlewares } from "./http/openapi-validation";
import { operationRouter } from "./http/operation-router";
import { requestPath } from "./http/problem";
import { probesRouter, type ReadinessCheck } from "./http/probes";
import { requestContext } from "./http/request-context";
import { requestMetrics } from "./http/request-metrics";
import { series } from "./http/middleware-series";
import { refuseUnstorableText } from "./http/unstorable-text";
import { validateEachItem } from "./http/validate-each";
import { assertValidOpenApiDocument } from "./openapi/assert-valid";
import { loadOpenApiDocument, type OpenApiDocument } from "./openapi/load-openapi";

/** The configuration keys the HTTP layer reads (a structural slice of the service config). */
export interface ApiHttpConfig {
  api: { max_body_bytes: number; max_broadcast_body_bytes: number };
}

export interface AppDeps {
  logger: Logger;
  config: ApiHttpConfig;
  /** Named checks for /readyz (e.g. postgres, redis, migrations). */
  readinessChecks?: Record<string, ReadinessCheck>;
  /** Per-check time limit for /readyz (default 2000 ms). */
  readinessTimeoutMs?: number;
  /**
   * Run after route matching and before request validation, for documented operations only
   * (unknown routes are 404/405 first). Authentication, scope checks and rate limits go here;
   * `getOperation(res)` tells whether the operation needs a key and which scopes it lists.
   */
  beforeValidation?: RequestHandler[];
  /** Resource routes, mounted after validation. Paths use Express syntax (`/v1/agents/:key`). */
  routes?: (router: Router) => void;
  /** Routes outside the OpenAPI document and its validation (hosted pages, dashboards). */
  mountUnvalidated?: (app: Express) => void;
  /** Check responses against the document (tests turn this on). */
  validateResponses?: boolean;
  /** Defaults to the document built from src/openapi. */
  apiDocument?: OpenApiDocument;
}

/** A documented operation nobody implemented. */
const notImplemented: RequestHandler = (req, _res, next) =>
  next(new AppError("not_found", `No endpoint at ${req.method} ${requestPath(req)}`));

// Order matters: context and access log; docs; unvalidated mounts; body parsing (errors held);
// route matching; beforeValidation (auth); held body errors; validation (then per item, for
// batch lists); no U+0000 in the body; routes; problem handler.
// Steps that run on every request share one router layer each (see middleware-series).
export function createApp(deps: AppDeps): Express {
  const doc = deps.apiDocument ?? loadOpenApiDocument();
  assertValidOpenApiDocument(doc); // fail at start, not on the first request
  const openapi = openApiMiddlewares(doc, { validateResponses: deps.validateResponses ?? false });
  const app = express();
  app.disable("x-powered-by");

  const docs = docsRouter(doc);
  const docsForReads: RequestHandler = (req, res, next) =>
    req.method === "GET" || req.method === "HEAD" ? docs(req, res, next) : next();
  app.use(series(requestContext(deps.logger), requestMetrics(), docsForReads));
  deps.mountUnvalidated?.(app);

  const routes = operationRouter();
  routes.router.use(probesRouter(deps.readinessChecks ?? {}, deps.logger, deps.readinessTimeoutMs));
  deps.routes?.(routes.router);
  app.use(
    series(
      jsonBodyParser({
        maxBodyBytes: deps.config.api.max_body_bytes,
        maxBroadcastBodyBytes: deps.config.api.max_broadcast_body_bytes,
      }),
      holdBodyError,
      ...openapi.matchRoute,
      ...(deps.beforeValidation ?? []),
      raiseHeldBodyError,
      ...openapi.validate,
      validateEachItem(doc),
      refuseUnstorableText,
      routes.handle,
      notImplemented,
    ),
  );
  app.use(errorHandler(deps.logger));
  return app;
}
