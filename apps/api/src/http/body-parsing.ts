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
export const PROVIDER_WEBHOOK_PATH = "/v1/inbound/smsprovider";

export function jsonBodyParser({ maxBodyBytes, maxBroadcastBodyBytes }: BodyLimits): RequestHandler {
  const normal = express.json({ limit: maxBodyBytes, type: JSON_TYPES });
  const broadcast = express.json({ limit: maxBroadcastBodyBytes, type: JSON_TYPES });
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
