import { checkSize } from "../render-budget";
import { formatExponent, formatFixed, formatGeneral, groupDigits, significantDigits } from "./number-format";
import { floatRepr, intStr, pyStr } from "./print";
import { isSafe, isStr, PyFloat, PyTypeError, PyValueError, typeName } from "./values";

// Python's format-spec mini-language (`"{:>8.2f}".format(x)`), and the number conversions that
// printf-style `%` formatting shares with it (format.ts).

export interface NumberSpec {
  sign: string;
  alternate: boolean;
  grouping: string;
  precision: number | null;
  type: string;
}

export interface Spec extends NumberSpec {
  fill: string;
  align: string;
  zero: boolean;
  width: number;
}

const SPEC = /^(?:([\s\S])?([<>=^]))?([-+ ])?(z)?(#)?(0)?(\d+)?([,_])?(?:\.(\d+))?([a-zA-Z%])?$/;

function parseSpec(text: string): Spec {
  const match = SPEC.exec(text);
  if (!match) throw new PyValueError("Invalid format specifier");
  const [, fill, align, sign, , alternate, zero, width, grouping, precision, type] = match;
  checkSize("format precision", Number(precision ?? 0));
  return {
    fill: fill ?? (zero && !align ? "0" : " "),
    align: align ?? (zero ? "=" : ""),
    sign: sign ?? "-",
    alternate: alternate !== undefined,
    zero: zero !== undefined,
    width: width ? Number(width) : 0,
    grouping: grouping ?? "",
    precision: precision === undefined ? null : Number(precision),
    type: type ?? "",
  };
}

/** Pads `body` (with its `sign` kept in front for `=` alignment) to the spec's width. */
export function pad(sign: string, body: string, spec: Spec, defaultAlign: string): string {
  checkSize("format width", spec.width);
  const length = [...sign].length + [...body].length;
  const room = spec.width - length;
  if (room <= 0) return sign + body;
  const align = spec.align || defaultAlign;
  const fill = (count: number) => spec.fill.repeat(count);
  if (align === "<") return sign + body + fill(room);
  if (align === "^") return fill(Math.floor(room / 2)) + sign + body + fill(room - Math.floor(room / 2));
  if (align === "=") return sign + fill(room) + body;
  return fill(room) + sign + body;
}

function withGrouping(body: string, grouping: string): string {
  if (!grouping) return body;
  const match = /^(\d+)(.*)$/s.exec(body);
  return match ? groupDigits(match[1]!, grouping) + match[2] : body;
}

function unknownCode(type: string, value: unknown): PyValueError {
  return new PyValueError(`Unknown format code '${type}' for object of type '${typeName(value)}'`);
}

/** Formats a number's absolute value; the caller adds the sign. */
export function numberBody(x: number, isInteger: boolean, spec: NumberSpec, original: unknown): string {
  let { type } = spec;
  const { precision, alternate } = spec;
  if (isInteger && "bcdoxXn".includes(type) && type !== "") {
    const whole = BigInt(Math.abs(Math.trunc(x)));
    if (type === "c") return String.fromCodePoint(Math.abs(x));
    if (type === "d" || type === "n") return withGrouping(intStr(Math.abs(x)), spec.grouping);
    const base = type === "b" ? 2 : type === "o" ? 8 : 16;
    const digits = whole.toString(base);
    const prefix = alternate ? `0${type}` : "";
    return prefix + (type === "X" ? digits.toUpperCase() : digits);
  }
  if (isInteger && type === "") {
    if (precision !== null) throw new PyValueError("Precision not allowed in integer format specifier");
    return withGrouping(intStr(Math.abs(x)), spec.grouping);
  }
  if ("bcdoxX".includes(type) && type !== "") throw unknownCode(type, original);
  const upper = type === "E" || type === "F" || type === "G";
  const abs = Math.abs(x);
  if (!Number.isFinite(abs)) {
    const text = Number.isNaN(abs) ? "nan" : "inf";
    return (upper ? text.toUpperCase() : text) + (type === "%" ? "%" : "");
  }
  if (type === "n") type = "g";
  let body: string;
  if (type === "f" || type === "F") body = formatFixed(abs, precision ?? 6);
  else if (type === "e" || type === "E") body = formatExponent(abs, precision ?? 6, alternate);
  else if (type === "g" || type === "G") body = formatGeneral(abs, precision ?? 6, alternate);
  else if (type === "%") body = `${formatFixed(abs * 100, precision ?? 6)}%`;
  else if (type === "" && precision === null) body = floatRepr(abs);
  else if (type === "") {
    // Like `g`, but a fixed-point result keeps one digit after the point.
    const significant = precision || 1;
    body = formatGeneral(abs, significant, alternate);
    const { exponent } = significantDigits(abs, significant);
    if (exponent >= -4 && exponent < significant && !body.includes(".")) body += ".0";
  } else throw unknownCode(type, original);
  if (precision === 0 && alternate && (type === "f" || type === "F" || type === "%")) {
    body = body.replace(/^(\d+)/, "$1.");
  }
  body = upper ? body.toUpperCase() : body;
  return withGrouping(body, spec.grouping);
}

/** format(value, spec): the `:spec` part of a `str.format` field. */
export function formatWithSpec(value: unknown, specText: string): string {
  if (isStr(value)) {
    const spec = parseSpec(specText);
    if (spec.type !== "" && spec.type !== "s") throw unknownCode(spec.type, value);
    if (spec.sign !== "-" || spec.grouping)
      throw new PyValueError("Sign not allowed in string format specifier");
    const text = isSafe(value) ? value.val : (value as string);
    const body = spec.precision === null ? text : [...text].slice(0, spec.precision).join("");
    return pad("", body, spec, "<");
  }
  if (specText === "") return pyStr(value);
  const number =
    typeof value === "number"
      ? value
      : value instanceof PyFloat
        ? value.value
        : typeof value === "boolean"
          ? +value
          : null;
  if (number === null)
    throw new PyTypeError(`unsupported format string passed to ${typeName(value)}.__format__`);
  const spec = parseSpec(specText);
  const isInteger = (typeof value === "number" && Number.isInteger(value)) || typeof value === "boolean";
  const body = numberBody(number, isInteger, spec, value);
  const negative = number < 0 || (!isInteger && Object.is(number, -0));
  const sign = negative ? "-" : spec.sign === "-" ? "" : spec.sign;
  return pad(sign, body, spec, ">");
}
