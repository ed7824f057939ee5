import { UndefinedError } from "./operators";
import { isDict, isSafe, PyTypeError, pyTuple, PyValueError, typeName } from "./values";

/**
 * list(value): what a for loop or a list filter walks. Strings give their characters, dicts
 * their keys (or, for a loop with two names, their items: a deliberate difference), undefined
 * gives nothing (ChainableUndefined).
 */
export function iterate(value: unknown, names = 1): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return [...value];
  if (isDict(value))
    return names === 2 ? Object.entries(value).map((entry) => pyTuple(entry)) : Object.keys(value);
  if (value === undefined) return [];
  if (isSafe(value)) return [...value.val];
  throw new PyTypeError(`'${typeName(value)}' object is not iterable`);
}

/** `a, b = value` (in `for` and `set`): exactly `count` items. */
export function unpack(value: unknown, count: number): unknown[] {
  if (value === undefined) throw new UndefinedError("cannot unpack an undefined value");
  const items = iterate(value);
  if (items.length < count)
    throw new PyValueError(`not enough values to unpack (expected ${count}, got ${items.length})`);
  if (items.length > count) throw new PyValueError(`too many values to unpack (expected ${count})`);
  return items;
}

/** len(value). */
export function pyLen(value: unknown): number {
  if (typeof value === "string") return /[\uD800-\uDFFF]/.test(value) ? [...value].length : value.length;
  if (Array.isArray(value)) return value.length;
  if (isDict(value)) return Object.keys(value).length;
  if (isSafe(value)) return pyLen(value.val);
  if (value === undefined) return 0;
  throw new PyTypeError(`object of type '${typeName(value)}' has no len()`);
}
