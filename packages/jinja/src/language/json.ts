import { tick } from "../render-budget";
import { floatRepr, intStr } from "./print";
import { isDict, isSafe, PyFloat, PyTypeError, typeName } from "./values";

// Python's json.dumps(value, sort_keys=True, indent=indent) as Jinja2's `tojson` calls it:
// ", " and ": " separators (or "," and newlines with an indent), ASCII only, floats as repr.

// eslint-disable-next-line no-control-regex -- json.dumps escapes control characters
const JSON_ESCAPED = /["\\\u0000-\u001f\u007f-\uffff]/g;
const JSON_SHORT: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

/** A JSON string as json.dumps writes it (ASCII only), in one pass of a regular expression. */
function quote(text: string): string {
  const body = text.replace(
    JSON_ESCAPED,
    (ch) => JSON_SHORT[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return `"${body}"`;
}

function number(x: number, isInteger: boolean): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  return isInteger ? intStr(x) : floatRepr(x);
}

export function pyJsonDumps(value: unknown, indent: number | null, depth = 0): string {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "string") return quote(value);
  if (isSafe(value)) return quote(value.val);
  if (typeof value === "number") return number(value, Number.isInteger(value));
  if (value instanceof PyFloat) return number(value.value, false);
  tick(); // one per container: a long list of objects is a loop
  const open = indent === null ? "" : `\n${" ".repeat(indent * (depth + 1))}`;
  const close = indent === null ? "" : `\n${" ".repeat(indent * depth)}`;
  const separator = indent === null ? ", " : `,${open}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[${open}${value.map((item) => pyJsonDumps(item, indent, depth + 1)).join(separator)}${close}]`;
  }
  if (isDict(value)) {
    const keys = Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (keys.length === 0) return "{}";
    const items = keys.map((key) => `${quote(key)}: ${pyJsonDumps(value[key], indent, depth + 1)}`);
    return `{${open}${items.join(separator)}${close}}`;
  }
  throw new PyTypeError(`Object of type ${typeName(value)} is not JSON serializable`);
}
