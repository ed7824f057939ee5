import { PyTypeError } from "./values";

// nunjucks passes keyword arguments (`truncate(9, leeway=0)`) as one trailing object marked
// `__keywords`; these helpers bind them the way Python binds a call to a signature.

export type Keywords = Record<string, unknown>;

function isKeywords(value: unknown): value is Keywords {
  return typeof value === "object" && value !== null && Object.hasOwn(value, "__keywords");
}

/** Positional arguments and keyword arguments (without the marker) of one call. */
export function splitArgs(args: readonly unknown[]): [unknown[], Keywords] {
  const last = args[args.length - 1];
  if (!isKeywords(last)) return [args as unknown[], {}];
  const keywords: Keywords = {};
  for (const key of Object.keys(last)) if (key !== "__keywords") keywords[key] = last[key];
  return [args.slice(0, -1), keywords];
}

/**
 * Binds a call to `params` (Python parameter names, in order). Missing ones are undefined, for
 * the caller to default. Too many, unknown or repeated arguments fail as Python fails.
 */
export function bindArgs(name: string, args: readonly unknown[], params: readonly string[]): unknown[] {
  const last = args[args.length - 1];
  if (args.length <= params.length && !isKeywords(last)) return args as unknown[];
  const [positional, keywords] = splitArgs(args);
  if (positional.length > params.length)
    throw new PyTypeError(`${name}() takes at most ${params.length} arguments (${positional.length} given)`);
  const bound = [...positional];
  for (const [key, value] of Object.entries(keywords)) {
    const index = params.indexOf(key);
    if (index === -1) throw new PyTypeError(`${name}() got an unexpected keyword argument '${key}'`);
    if (index < positional.length)
      throw new PyTypeError(`${name}() got multiple values for argument '${key}'`);
    bound[index] = value;
  }
  return bound;
}
