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

// Order matters: context and access log; docs; unvalidated mounts; body parsing (errors held);
// route matching; beforeValidation (auth); held body errors; validation; routes; problem handler.
export function createApp(deps: AppDeps): Express {
  const doc = deps.apiDocument ?? loadOpenApiDocument();
  assertValidOpenApiDocument(doc); // fail at start, not on the first request
  const openapi = openApiMiddlewares(doc, { validateResponses: deps.validateResponses ?? false });
  const app = express();
  app.disable("x-powered-by");

  app.use(requestContext(deps.logger));
  const docs = docsRouter(doc);
  app.use((req, res, next) =>
    req.method === "GET" || req.method === "HEAD" ? docs(req, res, next) : next(),
  );
  deps.mountUnvalidated?.(app);

  app.use(
    jsonBodyParser({
      maxBodyBytes: deps.config.api.max_body_bytes,
      maxBroadcastBodyBytes: deps.config.api.max_broadcast_body_bytes,
    }),
  );
  app.use(holdBodyError);
  app.use(...openapi.matchRoute);
  if (deps.beforeValidation?.length) app.use(...deps.beforeValidation);
  app.use(raiseHeldBodyError, ...openapi.validate);

  const routes = operationRouter();
  routes.router.use(probesRouter(deps.readinessChecks ?? {}, deps.logger, deps.readinessTimeoutMs));
  deps.routes?.(routes.router);
  app.use(routes.handle);

  // A documented operation nobody implemented.
  app.use((req, _res, next) =>
    next(new AppError("not_found", `No endpoint at ${req.method} ${requestPath(req)}`)),
  );
  app.use(errorHandler(deps.logger));
  return app;
}
