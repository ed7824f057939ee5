import { checkSize } from "../../render-budget";
import { formatFixed, roundHalfEven } from "../number-format";
import { UndefinedError } from "../operators";
import { pyStr } from "../print";
import { pyStrip } from "../str-methods";
import {
  isFloat,
  isNumeric,
  isStr,
  PyFloat,
  pyFloat,
  PyTypeError,
  PyValueError,
  toNumber,
  truthy,
  typeName,
} from "../values";
import { filter, type Filter } from "./helpers";

// Jinja2's number filters and `default` (filters.py), with Python's int() and float() parsing.

const DIGITS = "\\d(?:_?\\d)*";
const FLOAT_TEXT = new RegExp(`^[+-]?(?:(?:${DIGITS})?\\.${DIGITS}|${DIGITS}\\.?)(?:[eE][+-]?${DIGITS})?$`);
const SPECIAL_FLOAT = /^[+-]?(inf|infinity|nan)$/i;

/** Python's float(text); null when it would raise ValueError. */
function parseFloatText(text: string): number | null {
  const trimmed = pyStrip(text, null, true, true);
  if (SPECIAL_FLOAT.test(trimmed)) {
    const negative = trimmed.startsWith("-");
    if (/nan/i.test(trimmed)) return NaN;
    return negative ? -Infinity : Infinity;
  }
  return FLOAT_TEXT.test(trimmed) ? Number(trimmed.replace(/_/g, "")) : null;
}

const INT_PREFIXES: Record<string, number> = { "0x": 16, "0o": 8, "0b": 2 };

/** Python's int(text, base); null when it would raise ValueError. */
function parseIntText(text: string, base: number): number | null {
  let body = pyStrip(text, null, true, true);
  const negative = body.startsWith("-");
  if (/^[+-]/.test(body)) body = body.slice(1);
  const prefix = body.slice(0, 2).toLowerCase();
  let radix = base;
  if (Object.hasOwn(INT_PREFIXES, prefix) && (base === 0 || base === INT_PREFIXES[prefix])) {
    radix = INT_PREFIXES[prefix]!;
    body = body.slice(2).replace(/^_/, "");
  } else if (base === 0) {
    radix = 10;
    if (/^0+[1-9]/.test(body)) return null;
  }
  const digits = "0123456789abcdefghijklmnopqrstuvwxyz".slice(0, radix);
  const valid = new RegExp(`^[${digits}](?:_?[${digits}])*$`, "i");
  if (!valid.test(body)) return null;
  const value = parseInt(body.replace(/_/g, ""), radix);
  return negative ? -value : value;
}

function toInt(value: unknown, fallback: unknown, base: unknown): unknown {
  if (value === undefined) throw new UndefinedError("an undefined value has no int()");
  if (isStr(value)) {
    const parsed = parseIntText(pyStr(value), Number(base));
    if (parsed !== null) return parsed;
    const asFloat = parseFloatText(pyStr(value));
    return asFloat !== null && Number.isFinite(asFloat) ? Math.trunc(asFloat) + 0 : fallback;
  }
  if (isNumeric(value)) {
    const n = toNumber(value);
    return Number.isFinite(n) ? Math.trunc(n) + 0 : fallback;
  }
  return fallback;
}

function toFloat(value: unknown, fallback: unknown): unknown {
  if (value === undefined) throw new UndefinedError("an undefined value has no float()");
  if (isNumeric(value)) return pyFloat(toNumber(value));
  if (isStr(value)) {
    const parsed = parseFloatText(pyStr(value));
    if (parsed !== null) return pyFloat(parsed);
  }
  return fallback;
}

function roundNumber(value: unknown, precision: unknown = 0, method: unknown = "common"): unknown {
  if (method !== "common" && method !== "ceil" && method !== "floor")
    throw new PyTypeError("method must be common, ceil or floor");
  if (!isNumeric(value)) throw new PyTypeError(`type ${typeName(value)} doesn't define __round__ method`);
  const digits = Number(precision);
  checkSize("round() precision", digits);
  const x = toNumber(value);
  if (method !== "common") {
    const factor = 10 ** digits;
    return pyFloat((method === "ceil" ? Math.ceil : Math.floor)(x * factor) / factor);
  }
  if (!isFloat(value)) {
    if (digits >= 0) return x;
    const unit = 10 ** -digits;
    const quotient = x / unit;
    const floor = Math.floor(quotient);
    const rest = quotient - floor;
    const rounded = rest > 0.5 || (rest === 0.5 && floor % 2 !== 0) ? floor + 1 : floor;
    return rounded * unit;
  }
  return pyFloat(roundHalfEven(x, digits));
}

const SIZE_PREFIXES = ["k", "M", "G", "T", "P", "E", "Z", "Y"];

function filesizeformat(value: unknown, binary: unknown = false): string {
  const parsed = toFloat(value, null);
  if (parsed === null)
    throw new PyValueError(`could not convert ${typeName(value)} to float: ${pyStr(value)}`);
  const bytes = parsed instanceof PyFloat ? parsed.value : (parsed as number);
  const base = truthy(binary) ? 1024 : 1000;
  if (bytes === 1) return "1 Byte";
  if (bytes < base) return `${Math.trunc(bytes)} Bytes`;
  let unit = base;
  let prefix = "";
  for (let i = 0; i < SIZE_PREFIXES.length; i++) {
    unit = base ** (i + 2);
    prefix = truthy(binary) ? `${SIZE_PREFIXES[i]!.toUpperCase()}iB` : `${SIZE_PREFIXES[i]}B`;
    if (bytes < unit) break;
  }
  const scaled = (base * bytes) / unit;
  return `${scaled < 0 ? "-" : ""}${formatFixed(scaled, 1)} ${prefix}`;
}

function abs(value: unknown): unknown {
  if (typeof value === "number") return Math.abs(value);
  if (value instanceof PyFloat) return new PyFloat(Math.abs(value.value));
  if (typeof value === "boolean") return Number(value);
  throw new PyTypeError(`bad operand type for abs(): '${typeName(value)}'`);
}

const defaultFilter = filter("default", ["default_value", "boolean"], (value, fallback = "", boolean) =>
  value === undefined || (truthy(boolean) && !truthy(value)) ? fallback : value,
);

export const NUMBER_FILTERS: Record<string, Filter> = {
  abs,
  int: filter("int", ["default", "base"], (value, fallback = 0, base = 10) => toInt(value, fallback, base)),
  float: filter("float", ["default"], (value, fallback = new PyFloat(0)) => toFloat(value, fallback)),
  round: filter("round", ["precision", "method"], roundNumber),
  filesizeformat: filter("filesizeformat", ["binary"], filesizeformat),
  default: defaultFilter,
  d: defaultFilter,
};
