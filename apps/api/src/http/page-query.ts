import type { Request } from "express";

/** A list request's `limit` and `cursor`; the OpenAPI validation has already checked and coerced them. */
export function pageQuery(req: Request): { limit: number | undefined; cursor: string | undefined } {
  return { limit: req.query.limit as number | undefined, cursor: req.query.cursor as string | undefined };
}
