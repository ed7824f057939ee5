import { checkSize } from "../render-budget";
import { formatWithSpec, numberBody, pad, type Spec } from "./format-spec";
import { escapeHtml, pyRepr, pyStr } from "./print";
import {
  isDict,
  isNumeric,
  isSafe,
  isStr,
  PyFloat,
  PyTuple,
  pyTuple,
  SafeString,
  PyTypeError,
  PyValueError,
  toNumber,
  typeName,
} from "./values";

// printf-style `"%s of %d" % (a, b)` (also the `format` filter) and `"{} of {}".format(a, b)`,
// as Python does them.

const CONVERSION = /%(?:\(([^)]*)\))?([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?[hlL]?([diouxXeEfFgGcrsa%])?/y;

class ArgumentQueue {
  private next = 0;
  readonly values: unknown[];
  readonly mapping: Record<string, unknown> | null;
  constructor(args: unknown) {
    this.values = args instanceof PyTuple ? [...args] : [args];
    this.mapping = isDict(args) ? args : null;
  }
  take(): unknown {
    if (this.next >= this.values.length) throw new PyTypeError("not enough arguments for format string");
    return this.values[this.next++];
  }
  named(name: string): unknown {
    if (!this.mapping) throw new PyTypeError("format requires a mapping");
    if (!Object.hasOwn(this.mapping, name)) throw new PyValueError(`KeyError: '${name}'`);
    return this.mapping[name];
  }
  checkAllUsed(): void {
    if (!this.mapping && this.next < this.values.length)
      throw new PyTypeError("not all arguments converted during string formatting");
  }
}

function toInt(value: unknown, code: string, integerOnly: boolean): number {
  if (isNumeric(value) && !(integerOnly && (value instanceof PyFloat || !Number.isInteger(value)))) {
    return Math.trunc(toNumber(value));
  }
  const needed = integerOnly ? "an integer is required" : "a real number is required";
  throw new PyTypeError(`%${code} format: ${needed}, not ${typeName(value)}`);
}

function convert(value: unknown, code: string, flags: string, precision: number | null): [string, string] {
  if (code === "s")
    return ["", precision === null ? pyStr(value) : [...pyStr(value)].slice(0, precision).join("")];
  if (code === "r" || code === "a") return ["", pyRepr(value)];
  if (code === "c") {
    if (isStr(value) && pyStr(value).length === 1) return ["", pyStr(value)];
    return ["", String.fromCodePoint(toInt(value, code, true))];
  }
  const spec = { sign: "-", alternate: flags.includes("#"), grouping: "", precision, type: code };
  let number: number;
  let isInteger = true;
  if ("diu".includes(code)) {
    number = toInt(value, code, false);
    spec.type = "d";
  } else if ("oxX".includes(code)) {
    number = toInt(value, code, true);
  } else {
    if (!isNumeric(value)) throw new PyTypeError(`must be real number, not ${typeName(value)}`);
    number = toNumber(value);
    isInteger = false;
    spec.precision = precision ?? 6;
  }
  const body = numberBody(number, isInteger, spec, value);
  const negative = number < 0 || (!isInteger && Object.is(number, -0));
  const sign = negative ? "-" : flags.includes("+") ? "+" : flags.includes(" ") ? " " : "";
  return [sign, body];
}

/** `format % args`: args is a tuple of values, a dict for `%(name)s`, or one value. */
function percentFormat(format: string, args: unknown): string {
  const queue = new ArgumentQueue(args);
  let out = "";
  let last = 0;
  for (let at = format.indexOf("%"); at !== -1; at = format.indexOf("%", last)) {
    out += format.slice(last, at);
    CONVERSION.lastIndex = at;
    const match = CONVERSION.exec(format);
    const code = match?.[5];
    if (!match || !code) throw new PyValueError(`incomplete or unsupported format at index ${at}`);
    last = at + match[0].length;
    if (code === "%") {
      out += "%";
      continue;
    }
    const [, name, flags = "", widthText, precisionText] = match;
    const width = widthText === "*" ? toInt(queue.take(), "*", true) : Number(widthText ?? 0);
    const precision =
      precisionText === undefined
        ? null
        : precisionText === "*"
          ? toInt(queue.take(), "*", true)
          : Number(precisionText || 0);
    checkSize("format precision", precision ?? 0);
    const value = name === undefined ? queue.take() : queue.named(name);
    const [sign, body] = convert(value, code, flags, precision);
    const numeric = !"srac".includes(code);
    const spec: Spec = {
      fill: flags.includes("0") && numeric && !flags.includes("-") ? "0" : " ",
      align: flags.includes("-") || width < 0 ? "<" : flags.includes("0") && numeric ? "=" : ">",
      sign: "-",
      alternate: false,
      zero: false,
      width: Math.abs(width),
      grouping: "",
      precision: null,
      type: "",
    };
    out += pad(sign, body, spec, ">");
  }
  queue.checkAllUsed();
  return out + format.slice(last);
}

/** `format % args` for any value: Markup escapes its arguments and stays Markup (MarkupSafe). */
export function formatValue(format: unknown, args: unknown): unknown {
  if (!isSafe(format)) return percentFormat(pyStr(format), args);
  const escape = (value: unknown) =>
    isNumeric(value) || isSafe(value) ? value : new SafeString(escapeHtml(pyStr(value)));
  const escaped =
    args instanceof PyTuple
      ? pyTuple(args.map(escape))
      : isDict(args)
        ? Object.fromEntries(Object.entries(args).map(([key, value]) => [key, escape(value)]))
        : escape(args);
  return new SafeString(percentFormat(format.val, escaped));
}

const FIELD = /^([^.[!:]*)((?:\.[^.[!:]+|\[[^\]]*\])*)(?:!([rsa]))?(?::([\s\S]*))?$/;

function lookupField(value: unknown, path: string): unknown {
  for (const [, attr, key] of path.matchAll(/\.([^.[]+)|\[([^\]]*)\]/g)) {
    const name = attr ?? key!;
    if (Array.isArray(value) && /^\d+$/.test(name)) value = value[Number(name)];
    else if (isDict(value) && Object.hasOwn(value, name)) value = value[name];
    else throw new PyValueError(`cannot look up ${name} in ${typeName(value)}`);
  }
  return value;
}

/** `str.format(*args, **kwargs)` with fields `{}`, `{0}`, `{name}`, `{0[key]}`, `!r` and `:spec`. */
export function strFormat(format: string, args: unknown[], kwargs: Record<string, unknown>): string {
  let out = "";
  let auto = 0;
  let numbering: "auto" | "manual" | null = null;
  const parts = format.split(/(\{\{|\}\}|\{[^{}]*\}|[{}])/);
  for (const part of parts) {
    if (part === "{{") out += "{";
    else if (part === "}}") out += "}";
    else if (part === "{" || part === "}")
      throw new PyValueError(
        part === "}" ? "Single '}' encountered in format string" : "Single '{' encountered in format string",
      );
    else if (part.startsWith("{")) {
      const match = FIELD.exec(part.slice(1, -1));
      if (!match) throw new PyValueError(`bad format field ${part}`);
      const [, name = "", path = "", conversion, spec = ""] = match;
      let value: unknown;
      if (name === "" || /^\d+$/.test(name)) {
        const mode = name === "" ? "auto" : "manual";
        if (numbering && numbering !== mode)
          throw new PyValueError("cannot switch between automatic and manual field numbering");
        numbering = mode;
        const index = name === "" ? auto++ : Number(name);
        if (index >= args.length) throw new PyValueError(`Replacement index ${index} out of range`);
        value = args[index];
      } else {
        if (!Object.hasOwn(kwargs, name)) throw new PyValueError(`KeyError: '${name}'`);
        value = kwargs[name];
      }
      value = lookupField(value, path);
      if (conversion === "s") value = pyStr(value);
      else if (conversion) value = pyRepr(value);
      out += formatWithSpec(value, spec);
    } else out += part;
  }
  return out;
}
