import { tick } from "../render-budget";
import { isDict, isSafe, PyDictView, PyFloat, PyRange, PyTuple } from "./values";

// Python's str() and repr() for template values: `{{ x }}` prints str(x), and containers print
// their items' repr (docs/templates.md, "Values").

/** An object of svc's own template classes (namespace, loop) prints this way. */
interface PyPrintable {
  pyRepr(): string;
}

function isPrintable(value: object): value is PyPrintable {
  return typeof (value as Partial<PyPrintable>).pyRepr === "function";
}

/** str(value): what `{{ value }}`, `~` and the string filters make of a value. */
export function pyStr(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  if (isSafe(value)) return value.val;
  return pyRepr(value); // str() and repr() differ only for strings
}

/** repr(value): how a value prints inside a list, tuple or dict. */
export function pyRepr(value: unknown): string {
  switch (typeof value) {
    case "string":
      return strRepr(value);
    case "number":
      return Number.isInteger(value) ? intStr(value) : floatRepr(value);
    case "boolean":
      return value ? "True" : "False";
    case "undefined":
      return "Undefined";
    case "function":
      return "<function>";
    case "bigint":
      return value.toString();
  }
  if (value === null) return "None";
  if (typeof value !== "object") return String(value);
  if (value instanceof PyFloat) return floatRepr(value.value);
  if (isSafe(value)) return `Markup(${strRepr(value.val)})`;
  if (value instanceof PyRange) {
    const step = value.step === 1 ? "" : `, ${value.step}`;
    return `range(${value.start}, ${value.stop}${step})`;
  }
  if (value instanceof PyTuple) {
    return value.length === 1 ? `(${pyRepr(value[0])},)` : `(${value.map(itemRepr).join(", ")})`;
  }
  if (value instanceof PyDictView) return `${value.kind}([${value.map(itemRepr).join(", ")}])`;
  if (Array.isArray(value)) return `[${value.map(itemRepr).join(", ")}]`;
  if (isDict(value)) {
    const items: string[] = [];
    for (const key of Object.keys(value)) {
      tick();
      items.push(`${strRepr(key)}: ${pyRepr(value[key])}`);
    }
    return `{${items.join(", ")}}`;
  }
  if (isPrintable(value)) return value.pyRepr();
  return `<${value.constructor?.name ?? "object"} object>`;
}

/** An item of a container: printing a long list is a loop, and every item ticks the budget. */
function itemRepr(value: unknown): string {
  tick();
  return pyRepr(value);
}

/** Python prints every digit of an int; JS would switch to `1e+21`. */
export function intStr(n: number): string {
  return Math.abs(n) <= Number.MAX_SAFE_INTEGER ? String(n === 0 ? 0 : n) : BigInt(n).toString();
}

/**
 * repr(float): the shortest digits that read back the same (as JS finds them), laid out as
 * Python does: always a decimal point, and exponent notation below 1e-4 or from 1e16 on.
 */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, exponentText] = x.toExponential().split("e") as [string, string];
  const exponent = Number(exponentText);
  const sign = x < 0 ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  if (exponent < -4 || exponent >= 16) {
    const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const power = String(Math.abs(exponent)).padStart(2, "0");
    return `${sign}${body}e${exponent < 0 ? "-" : "+"}${power}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  return `${sign}${whole}.${digits.slice(exponent + 1) || "0"}`;
}

// Python's str.isprintable(): separators (other than the space) and control, format, private-use
// and unassigned characters are escaped in repr; so are the quote and the backslash. One pass of
// a regular expression: a loop over every character of a long text costs far more.
const ESCAPED_IN_SINGLE = /['\\]|(?! )[\p{C}\p{Z}]/gu;
const ESCAPED_IN_DOUBLE = /["\\]|(?! )[\p{C}\p{Z}]/gu;
const SHORT_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** repr(str): single quotes unless the text has a ' and no ", escapes as Python writes them. */
export function strRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = text.replace(quote === "'" ? ESCAPED_IN_SINGLE : ESCAPED_IN_DOUBLE, (ch) =>
    ch === quote || ch === "\\" ? `\\${ch}` : (SHORT_ESCAPES[ch] ?? escapeCodePoint(ch.codePointAt(0)!)),
  );
  return quote + body + quote;
}

function escapeCodePoint(code: number): string {
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\U${code.toString(16).padStart(8, "0")}`;
}

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&#34;",
  "'": "&#39;",
};

/** MarkupSafe's escape, as Jinja2's autoescape and `escape` filter do it. */
export function escapeHtml(text: string): string {
  return /[&<>"']/.test(text) ? text.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!) : text;
}
