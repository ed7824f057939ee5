import express, { type ErrorRequestHandler, type RequestHandler } from "express";

// JSON bodies up to api.max_body_bytes (broadcasts: api.max_broadcast_body_bytes), and the form of
// the text provider's webhook. Parse errors are held back and raised only after authentication
// (docs/api.md "Request rules": a bad body without a key is 401).

/** The http-errors that body-parser raises (malformed JSON, too large, bad charset). */
export interface BodyParserError extends Error {
  type: string;
  status: number;
  limit?: number;
}

export const isBodyParserError = (err: unknown): err is BodyParserError =>
  err instanceof Error &&
  typeof (err as Partial<BodyParserError>).type === "string" &&
  typeof (err as Partial<BodyParserError>).status === "number" &&
  (err as BodyParserError).status >= 400 &&
  (err as BodyParserError).status < 500;

export interface BodyLimits {
  maxBodyBytes: number;
  maxBroadcastBodyBytes: number;
}

const JSON_TYPES = ["application/json", "application/*+json"];
const BROADCASTS = /^\/v1\/broadcasts(\/|$)/;
/** The text provider's webhook posts a form (docs/texting.md "Twilio"); nothing else of the API does. */
const PROVIDER_WEBHOOK_PATH = "/v1/inbound/smsprovider";

/**
 * How deep a JSON body may nest (docs/api.md "Request rules"). Checked right after parsing, before
 * anything walks the body recursively (validation, the unstorable-text check, JSON Logic, the
 * database's own jsonb parser): a body nested 5,000 deep overflowed the stack in one of them.
 */
const MAX_JSON_DEPTH = 64;

/** True when `value` nests arrays and objects more than `limit` deep; iterative, never recursive. */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  // Two parallel stacks and for…in: no allocation per node, since bodies hold many small objects.
  const values: object[] = [];
  const depths: number[] = [];
  if (value !== null && typeof value === "object") {
    values.push(value);
    depths.push(1);
  }
  while (values.length > 0) {
    const current = values.pop() as Record<string, unknown>;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    for (const key in current) {
      const inner = current[key];
      if (inner !== null && typeof inner === "object") {
        values.push(inner);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * A JSON parser whose result is refused (400, held like any body error) when it nests deeper than
 * MAX_JSON_DEPTH; the refused body is dropped, so nothing after it can walk it.
 */
export function withDepthLimit(parse: RequestHandler): RequestHandler {
  return (req, res, next) =>
    parse(req, res, (error?: unknown) => {
      if (error !== undefined || !nestsDeeperThan(req.body, MAX_JSON_DEPTH)) return next(error);
      req.body = undefined;
      const tooDeep = new Error(
        `Request body nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`,
      );
      next(Object.assign(tooDeep, { type: "entity.too.deep", status: 400, expose: true }));
    });
}

export function jsonBodyParser({ maxBodyBytes, maxBroadcastBodyBytes }: BodyLimits): RequestHandler {
  const normal = withDepthLimit(express.json({ limit: maxBodyBytes, type: JSON_TYPES }));
  const broadcast = withDepthLimit(express.json({ limit: maxBroadcastBodyBytes, type: JSON_TYPES }));
  // Flat name/value pairs as Twilio signs them (a repeated name becomes a list).
  const form = express.urlencoded({ extended: false, limit: maxBodyBytes, parameterLimit: 1000 });
  return (req, res, next) => {
    if (req.path === PROVIDER_WEBHOOK_PATH) return form(req, res, next);
    return (BROADCASTS.test(req.path) ? broadcast : normal)(req, res, next);
  };
}

export const holdBodyError: ErrorRequestHandler = (err, _req, res, next) => {
  if (!isBodyParserError(err)) return next(err);
  res.locals.bodyError = err;
  next();
};

export const raiseHeldBodyError: RequestHandler = (_req, res, next) => {
  next(res.locals.bodyError as Error | undefined);
};
