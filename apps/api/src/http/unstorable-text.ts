import type { RequestHandler } from "express";
import { AppError, type ValidationIssue } from "@svc/core";

// Postgres text and jsonb cannot hold U+0000 nor a UTF-16 half without its partner (a lone
// surrogate, `"\ud800"` in JSON: jsonb refuses it, text would store U+FFFD instead), and svc stores
// what it is sent, so a JSON body with either in any string or key would reach the database only
// to be refused there (a 500, or a half-done request). It is refused up front with the place it
// was found, and so is a query value. JSON Schema has no way to say "no NUL anywhere", so this runs
// right after the OpenAPI validation, for every request. The walk is iterative: a body nested
// thousands deep (refused anyway, body-parsing.ts) cannot overflow the stack here.

type Loc = (string | number)[];

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

const NUL_MSG = "contains the character \\u0000, which cannot be stored";
const SURROGATE_MSG = "contains an unpaired UTF-16 surrogate, which cannot be stored";

/** Why `text` cannot be stored, or null. */
function unstorableText(text: string): string | null {
  if (text.includes("\u0000")) return NUL_MSG;
  if (LONE_SURROGATE.test(text)) return SURROGATE_MSG;
  return null;
}

/** Where the first unstorable key or string is in a parsed JSON value (document order), or null. */
export function findUnstorableText(value: unknown): { loc: Loc; msg: string } | null {
  // A stack of frames that know their parent and key: the place is written out only when found,
  // so a clean body of many small objects costs no allocation per node.
  interface Frame {
    value: unknown;
    parent: Frame | null;
    key: string | number;
  }
  const locOf = (frame: Frame | null, last?: string | number): Loc => {
    const loc: Loc = last === undefined ? [] : [last];
    for (let f = frame; f && f.parent; f = f.parent) loc.unshift(f.key);
    return loc;
  };
  const stack: Frame[] = [{ value, parent: null, key: "" }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const current = frame.value;
    if (typeof current === "string") {
      const msg = unstorableText(current);
      if (msg) return { loc: locOf(frame), msg };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) {
        const item: unknown = current[i];
        if (item !== null && typeof item === "object") stack.push({ value: item, parent: frame, key: i });
        else if (typeof item === "string") {
          const msg = unstorableText(item);
          if (msg) stack.push({ value: item, parent: frame, key: i });
        }
      }
    } else if (current !== null && typeof current === "object") {
      const keys = Object.keys(current);
      for (const key of keys) {
        const msg = unstorableText(key);
        if (msg) return { loc: locOf(frame, key), msg };
      }
      for (let i = keys.length - 1; i >= 0; i--) {
        const item: unknown = (current as Record<string, unknown>)[keys[i]!];
        if ((item !== null && typeof item === "object") || typeof item === "string")
          stack.push({ value: item, parent: frame, key: keys[i]! });
      }
    }
  }
  return null;
}

/** Where the first U+0000 is in a parsed JSON value (a key or a string), or null. */
export function findNulCharacter(value: unknown): Loc | null {
  const found = findUnstorableText(value);
  return found && found.msg === NUL_MSG ? found.loc : null;
}

/** The 422 issue for unstorable text found at `loc` (prefixed with where the value sits). */
export function unstorableIssue(loc: Loc, msg: string): ValidationIssue {
  return { loc, msg, type: "value_error" };
}

export const refuseUnstorableText: RequestHandler = (req, res, next) => {
  // The query too: a filter value is compared in SQL, where a NUL is an error as well. A list
  // validated item by item had its items checked already (validate-each.ts): one item's NUL is its own 422.
  const perItem = res.locals.validatedEachProperty as string | undefined;
  const body = perItem ? { ...(req.body as Record<string, unknown>), [perItem]: [] } : (req.body as unknown);
  const inBody = findUnstorableText(body);
  const inQuery = inBody ? null : findUnstorableText(req.query as unknown);
  const found = inBody
    ? { loc: ["body", ...inBody.loc], msg: inBody.msg }
    : inQuery
      ? { loc: ["query", ...inQuery.loc], msg: inQuery.msg }
      : null;
  if (!found) return next();
  next(
    new AppError("validation", `${found.loc.join(".")}: ${found.msg}`, {
      errors: [unstorableIssue(found.loc, found.msg)],
    }),
  );
};
