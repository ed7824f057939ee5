import nunjucks from "nunjucks";

// How Python values live in JavaScript while a template renders (docs/templates.md, "Values"):
// str → string, int → integral number, float → non-integral number or PyFloat (a whole float such
// as 12.0, which a JS number cannot tell from the int 12), bool → boolean, None → null, Jinja2's
// Undefined → undefined, list → Array, tuple → PyTuple, dict → plain object, Markup → SafeString.

export const SafeString: new (value: string) => { val: string; length: number } = nunjucks.runtime.SafeString;

/** A whole-valued Python float (12.0). Non-whole floats are plain numbers. */
export class PyFloat {
  constructor(readonly value: number) {}
  valueOf(): number {
    return this.value;
  }
  toJSON(): number {
    return this.value;
  }
}

/** A Python tuple: an array that prints `(1, 2)`. Array methods on it give plain arrays. */
export class PyTuple<T = unknown> extends Array<T> {
  static override get [Symbol.species]() {
    return Array;
  }
}

export function pyTuple(items: Iterable<unknown>): PyTuple {
  const tuple = new PyTuple();
  for (const item of items) tuple.push(item);
  return tuple;
}

/** What `groupby` gives: `(grouper, list)` tuples that also have those two attributes. */
export class GroupTuple extends PyTuple {
  constructor(
    readonly grouper: unknown,
    readonly list: unknown[],
  ) {
    super();
    this.push(grouper, list);
  }
}

/** What `dict.items()`, `.keys()` and `.values()` give: a list that prints `dict_items([...])`. */
export class PyDictView extends Array<unknown> {
  kind = "dict_items";
  static override get [Symbol.species]() {
    return Array;
  }
  static make(kind: "dict_items" | "dict_keys" | "dict_values", items: unknown[]): PyDictView {
    const view = new PyDictView();
    view.kind = kind;
    for (const item of items) view.push(item);
    return view;
  }
}

/** `range(...)`: a list that prints `range(0, 3)`. */
export class PyRange extends Array<number> {
  start = 0;
  stop = 0;
  step = 1;
  static override get [Symbol.species]() {
    return Array;
  }
}

/** Error classes named as Python names them; the message follows Python's wording. */
export class PyTypeError extends Error {
  override name = "TypeError";
}
export class PyValueError extends Error {
  override name = "ValueError";
}
export class PyZeroDivisionError extends Error {
  override name = "ZeroDivisionError";
}

/** Makes a float from a JS number: whole values are boxed so they keep printing as floats. */
export function pyFloat(n: number): number | PyFloat {
  return Number.isInteger(n) ? new PyFloat(n) : n;
}

export function isSafe(value: unknown): value is { val: string } {
  return value instanceof SafeString;
}

export function isStr(value: unknown): value is string | { val: string } {
  return typeof value === "string" || value instanceof SafeString;
}

export function isFloat(value: unknown): boolean {
  return value instanceof PyFloat || (typeof value === "number" && !Number.isInteger(value));
}

/** int, float or bool: what Python arithmetic takes. */
export function isNumeric(value: unknown): value is number | boolean | PyFloat {
  return typeof value === "number" || typeof value === "boolean" || value instanceof PyFloat;
}

export function toNumber(value: number | boolean | PyFloat): number {
  return typeof value === "number" ? value : typeof value === "boolean" ? +value : value.value;
}

/**
 * A JSON object or a dict literal (not a list, not one of the classes above). Checked by shape,
 * not identity: structuredClone and JSON.parse may come from another realm (as under jest).
 */
export function isDict(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null;
}

/** Python's truthiness: empty strings, lists and dicts, 0, None and undefined are false. */
export function truthy(value: unknown): boolean {
  switch (typeof value) {
    case "string":
      return value.length > 0;
    case "number":
      return value !== 0;
    case "boolean":
      return value;
    case "undefined":
      return false;
    case "object":
      if (value === null) return false;
      if (Array.isArray(value)) return value.length > 0;
      if (value instanceof PyFloat) return value.value !== 0;
      if (value instanceof SafeString) return value.val.length > 0;
      if (isDict(value)) {
        for (const key in value) if (Object.hasOwn(value, key)) return true;
        return false;
      }
      return true;
    default:
      return true;
  }
}

/** Python's type name, for error messages. */
export function typeName(value: unknown): string {
  switch (typeof value) {
    case "string":
      return "str";
    case "number":
      return Number.isInteger(value) ? "int" : "float";
    case "boolean":
      return "bool";
    case "undefined":
      return "Undefined";
    case "function":
      return "function";
  }
  if (value === null) return "NoneType";
  if (value instanceof PyFloat) return "float";
  if (value instanceof SafeString) return "Markup";
  if (value instanceof PyTuple) return "tuple";
  if (value instanceof PyRange) return "range";
  if (Array.isArray(value)) return "list";
  if (isDict(value)) return "dict";
  return (value as object).constructor?.name ?? "object";
}
