import type { RequestHandler } from "express";
import { AppError } from "@svc/core";

// Postgres text and jsonb cannot hold U+0000, and svc stores what it is sent, so a JSON body with
// a NUL in any string or key would reach the database only to be refused there (a 500, or a
// half-done request). It is refused up front with the place it was found, and so is a query
// value. JSON Schema has no way to say "no NUL anywhere", so this runs right after the OpenAPI
// validation, for every request.

type Loc = (string | number)[];

/** Where the first U+0000 is in a parsed JSON value (a key or a string), or null. */
export function findNulCharacter(value: unknown, loc: Loc = []): Loc | null {
  if (typeof value === "string") return value.includes("\u0000") ? loc : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNulCharacter(value[i], [...loc, i]);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      if (key.includes("\u0000")) return [...loc, key];
      const found = findNulCharacter(inner, [...loc, key]);
      if (found) return found;
    }
  }
  return null;
}

export const refuseUnstorableText: RequestHandler = (req, res, next) => {
  // The query too: a filter value is compared in SQL, where a NUL is an error as well. A list
  // validated item by item had its items checked already (validate-each.ts): one item's NUL is its own 422.
  const perItem = res.locals.validatedEachProperty as string | undefined;
  const body = perItem ? { ...(req.body as Record<string, unknown>), [perItem]: [] } : (req.body as unknown);
  const inBody = findNulCharacter(body);
  const found = inBody ? ["body", ...inBody] : prefixed("query", findNulCharacter(req.query as unknown));
  if (!found) return next();
  const msg = "contains the character \\u0000, which cannot be stored";
  next(
    new AppError("validation", `${found.join(".")}: ${msg}`, {
      errors: [{ loc: found, msg, type: "value_error" }],
    }),
  );
};

const prefixed = (root: string, loc: Loc | null): Loc | null => (loc ? [root, ...loc] : null);
