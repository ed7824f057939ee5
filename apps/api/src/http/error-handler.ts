import type { ErrorRequestHandler, Request } from "express";
import { HttpError } from "express-openapi-validator/dist/framework/types";
import { isAppError } from "@svc/core";
import { QueueUnavailableError } from "@svc/queue";
import { classifyDatabaseError } from "@svc/store";
import type { Logger } from "@svc/log";
import { REDIS_RETRY_AFTER_SECONDS } from "../auth/rate-limit";
import { isBodyParserError, type BodyParserError } from "./body-parsing";
import { loggablePath } from "./loggable-path";
import { fromAppError, sendProblem, type ProblemInput } from "./problem";
import { summarizeIssues, toValidationIssues } from "./validation-issues";

// The one place errors become responses (docs/api.md, "Errors"): AppError, validator and
// body-parser errors map to their problem; anything else is a 500 that is logged in full and
// answered without internals.

function fromBodyParser(err: BodyParserError): ProblemInput {
  switch (err.type) {
    case "entity.parse.failed":
      return { status: 400, detail: `Malformed JSON in request body: ${err.message}` };
    case "entity.too.large":
      return { status: 413, detail: `Request body is larger than the limit of ${err.limit} bytes` };
    default:
      return { status: err.status, detail: err.message };
  }
}

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function expectedMediaTypes(req: Request): string[] {
  const body = (req as Request & { openapi?: { schema?: { requestBody?: { content?: object } } } }).openapi
    ?.schema?.requestBody;
  return Object.keys(body?.content ?? {});
}

const hasBody = (req: Request): boolean =>
  req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;

function fromValidator(err: HttpError, req: Request): ProblemInput | undefined {
  const path = req.originalUrl.split("?")[0];
  switch (err.status) {
    case 400: {
      const issues = toValidationIssues(err.errors);
      if (issues) return { status: 422, detail: summarizeIssues(issues), errors: issues };
      return { status: 400, detail: capitalize(err.message) };
    }
    case 404:
      return { status: 404, detail: `No endpoint at ${req.method} ${path}` };
    case 405:
      return {
        status: 405,
        detail: `${req.method} is not allowed on ${path}`,
        headers: { Allow: err.headers?.Allow ?? "" },
      };
    case 415: {
      if (!req.headers["content-type"] && !hasBody(req)) {
        const issues = [{ loc: ["body"], msg: "is required", type: "missing" }];
        return { status: 422, detail: summarizeIssues(issues), errors: issues };
      }
      const expected = expectedMediaTypes(req);
      const hint = expected.length > 0 ? `; send ${expected.join(" or ")}` : "";
      return { status: 415, detail: `${capitalize(err.message)}${hint}` };
    }
    default:
      // 5xx from the validator (bad document, invalid response) are our bugs: handled as internal.
      return err.status < 500 ? { status: err.status, detail: capitalize(err.message) } : undefined;
  }
}

const DATABASE_RETRY_AFTER_SECONDS = 2;

function toProblemInput(err: unknown, req: Request): ProblemInput | undefined {
  if (isAppError(err)) return fromAppError(err);
  if (err instanceof HttpError) return fromValidator(err, req);
  // Work that must reach Redis now, while Redis is unreachable (docs/operations.md).
  if (err instanceof QueueUnavailableError)
    return {
      status: 503,
      detail: "the job queue is unreachable right now; retry the request",
      headers: { "Retry-After": String(REDIS_RETRY_AFTER_SECONDS) },
    };
  // Postgres went away mid-request (a restart, a failover, terminated sessions): the pool
  // reconnects on the next query, so the client is told to retry rather than shown a 500.
  if (classifyDatabaseError(err)?.kind === "unavailable")
    return {
      status: 503,
      detail: "the database is unreachable right now; retry the request",
      headers: { "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) },
    };
  if (isBodyParserError(err)) return fromBodyParser(err);
  return undefined;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      logger.error("error after response started", { path: loggablePath(req), error: err });
      return next(err);
    }
    const input = toProblemInput(err, req);
    const status = input?.status ?? 500;
    // Deliberate 5xx (503 from readiness) are answered as thrown; only the unexpected are logged.
    if (status === 500) {
      const validatorErrors = err instanceof HttpError ? err.errors : undefined;
      logger.error("request failed", {
        method: req.method,
        path: loggablePath(req),
        status,
        error: err,
        validator_errors: validatorErrors,
      });
    }
    if (input && status !== 500) {
      if (status === 503 && !Object.keys(input.headers ?? {}).some((h) => h.toLowerCase() === "retry-after"))
        input.headers = { ...input.headers, "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS) };
      sendProblem(req, res, input);
      return;
    }
    const requestId = String(res.locals.requestId ?? "unknown");
    sendProblem(req, res, { status: 500, detail: `An internal error occurred; request id ${requestId}` });
  };
}
