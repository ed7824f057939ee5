import { checkBuilt, checkSize, RENDER_MAX_REPEAT, RenderLimitError } from "../render-budget";
import { formatValue } from "./format";
import { escapeHtml, pyStr } from "./print";
import {
  isDict,
  isFloat,
  isNumeric,
  isSafe,
  isStr,
  PyFloat,
  pyFloat,
  PyTuple,
  pyTuple,
  PyTypeError,
  PyZeroDivisionError,
  SafeString,
  toNumber,
  typeName,
} from "./values";

// Python's operators for template expressions; the compiler patches (compiler/expressions.ts) emit
// calls to these instead of JavaScript's own operators. Each has a fast path for two plain
// numbers, the common case.

export class UndefinedError extends Error {
  override name = "UndefinedError";
}

function isInt(value: unknown): value is number | boolean {
  return (typeof value === "number" && Number.isInteger(value)) || typeof value === "boolean";
}

/** The result of a numeric operation: a float when either operand is one. */
function numeric(a: unknown, b: unknown, result: number): number | PyFloat {
  return isFloat(a) || isFloat(b) ? pyFloat(result) : result;
}

function operandError(op: string, a: unknown, b: unknown): Error {
  if (a === undefined || b === undefined)
    return new UndefinedError(`an undefined value cannot be used with ${op}`);
  if (op === "+" && (isStr(a) || Array.isArray(a)) && typeName(a) !== typeName(b))
    return new PyTypeError(`can only concatenate ${typeName(a)} (not "${typeName(b)}") to ${typeName(a)}`);
  return new PyTypeError(`unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`);
}

function joinText(a: string | { val: string }, b: string | { val: string }): unknown {
  checkBuilt("+", textLength(a) + textLength(b));
  if (typeof a === "string" && typeof b === "string") return a + b;
  // Markup + str escapes the str (and str + Markup too), as MarkupSafe does.
  const left = isSafe(a) ? a.val : escapeHtml(a as string);
  const right = isSafe(b) ? b.val : escapeHtml(b as string);
  return new SafeString(left + right);
}

export function add(a: unknown, b: unknown): unknown {
  if (typeof a === "number" && typeof b === "number")
    return Number.isInteger(a) && Number.isInteger(b) ? a + b : pyFloat(a + b);
  if (isNumeric(a) && isNumeric(b)) return numeric(a, b, toNumber(a) + toNumber(b));
  if (isStr(a) && isStr(b)) return joinText(a, b);
  if (Array.isArray(a) && Array.isArray(b) && a instanceof PyTuple === b instanceof PyTuple) {
    checkBuilt("+", a.length + b.length);
    return a instanceof PyTuple ? pyTuple([...a, ...b]) : [...a, ...b];
  }
  throw operandError("+", a, b);
}

export function sub(a: unknown, b: unknown): unknown {
  if (typeof a === "number" && typeof b === "number")
    return Number.isInteger(a) && Number.isInteger(b) ? a - b : pyFloat(a - b);
  if (isNumeric(a) && isNumeric(b)) return numeric(a, b, toNumber(a) - toNumber(b));
  throw operandError("-", a, b);
}

function repeat(sequence: unknown, times: number): unknown {
  checkSize("* count", times);
  const count = Math.max(0, times);
  const length =
    typeof sequence === "string"
      ? sequence.length
      : isSafe(sequence)
        ? sequence.val.length
        : (sequence as unknown[]).length;
  if (length * count > RENDER_MAX_REPEAT)
    throw new RenderLimitError(`* builds more than ${RENDER_MAX_REPEAT}`);
  if (typeof sequence === "string") return sequence.repeat(count);
  if (isSafe(sequence)) return new SafeString(sequence.val.repeat(count));
  const items = sequence as unknown[];
  const out: unknown[] = [];
  for (let i = 0; i < count; i++) for (const item of items) out.push(item);
  return sequence instanceof PyTuple ? pyTuple(out) : out;
}

export function mul(a: unknown, b: unknown): unknown {
  if (typeof a === "number" && typeof b === "number")
    return Number.isInteger(a) && Number.isInteger(b) ? a * b : pyFloat(a * b);
  if (isNumeric(a) && isNumeric(b)) return numeric(a, b, toNumber(a) * toNumber(b));
  if ((isStr(a) || Array.isArray(a)) && isInt(b)) return repeat(a, Number(b));
  if (isInt(a) && (isStr(b) || Array.isArray(b))) return repeat(b, Number(a));
  throw operandError("*", a, b);
}

export function div(a: unknown, b: unknown): unknown {
  if (!isNumeric(a) || !isNumeric(b)) throw operandError("/", a, b);
  const divisor = toNumber(b);
  if (divisor === 0) throw new PyZeroDivisionError("division by zero");
  return pyFloat(toNumber(a) / divisor);
}

// CPython's float divmod: the remainder takes the divisor's sign and the quotient is floored.
function floatDivMod(x: number, y: number): [number, number] {
  let mod = x % y;
  let quotient = (x - mod) / y;
  if (mod) {
    if (y < 0 !== mod < 0) {
      mod += y;
      quotient -= 1;
    }
  } else {
    mod = Math.sign(y) < 0 || Object.is(y, -0) ? -0 : 0;
  }
  let floored: number;
  if (quotient) {
    floored = Math.floor(quotient);
    if (quotient - floored > 0.5) floored += 1;
  } else {
    floored = x / y < 0 || Object.is(x / y, -0) ? -0 : 0;
  }
  return [floored, mod];
}

function checkDivisor(a: unknown, b: unknown, op: string): number {
  if (!isNumeric(a) || !isNumeric(b)) throw operandError(op, a, b);
  const divisor = toNumber(b);
  if (divisor === 0)
    throw new PyZeroDivisionError(
      isFloat(a) || isFloat(b) ? "float divmod()" : "integer division or modulo by zero",
    );
  return divisor;
}

export function floordiv(a: unknown, b: unknown): unknown {
  const divisor = checkDivisor(a, b, "//");
  if (isInt(a) && isInt(b)) return Math.floor(Number(a) / divisor);
  return pyFloat(floatDivMod(toNumber(a as number), divisor)[0]);
}

export function mod(a: unknown, b: unknown): unknown {
  if (isStr(a)) return formatValue(a, b);
  const divisor = checkDivisor(a, b, "%");
  if (isInt(a) && isInt(b)) {
    const rest = Number(a) % divisor;
    return rest !== 0 && rest < 0 !== divisor < 0 ? rest + divisor : rest + 0;
  }
  return pyFloat(floatDivMod(toNumber(a as number), divisor)[1]);
}

export function pow(a: unknown, b: unknown): unknown {
  if (!isNumeric(a) || !isNumeric(b)) throw operandError("** or pow()", a, b);
  const base = toNumber(a);
  const exponent = toNumber(b);
  if (base === 0 && exponent < 0) throw new PyZeroDivisionError("0.0 cannot be raised to a negative power");
  if (isInt(a) && isInt(b) && exponent >= 0) return base ** exponent;
  return pyFloat(base ** exponent);
}

export function neg(a: unknown): unknown {
  if (typeof a === "number") return -a;
  if (a instanceof PyFloat) return new PyFloat(-a.value);
  if (typeof a === "boolean") return -a;
  if (a === undefined) throw new UndefinedError("an undefined value cannot be negated");
  throw new PyTypeError(`bad operand type for unary -: '${typeName(a)}'`);
}

export function pos(a: unknown): unknown {
  if (typeof a === "number" || a instanceof PyFloat) return a;
  if (typeof a === "boolean") return +a;
  if (a === undefined) throw new UndefinedError("an undefined value cannot be used with unary +");
  throw new PyTypeError(`bad operand type for unary +: '${typeName(a)}'`);
}

/** `a ~ b`: both sides as text; with autoescape, Markup on either side escapes the other. */
export function concat(a: unknown, b: unknown, autoescape: boolean): unknown {
  if (autoescape && (isSafe(a) || isSafe(b))) {
    const left = isSafe(a) ? a.val : escapeHtml(pyStr(a));
    const right = isSafe(b) ? b.val : escapeHtml(pyStr(b));
    checkBuilt("~", left.length + right.length);
    return new SafeString(left + right);
  }
  const left = pyStr(a);
  const right = pyStr(b);
  // Checked before joining: repeated `s ~ s` doubles a rope that costs nothing until printed.
  checkBuilt("~", left.length + right.length);
  return left + right;
}

function textLength(text: string | { val: string }): number {
  return typeof text === "string" ? text.length : text.val.length;
}

/** Python's `==`: by value for numbers (1 == 1.0 == True), strings, lists, tuples and dicts. */
export function eq(a: unknown, b: unknown): boolean {
  if (a === b) return a === a; // NaN is not equal to itself
  if (isNumeric(a) && isNumeric(b)) return toNumber(a) === toNumber(b);
  if (isStr(a) && isStr(b)) return String(isSafe(a) ? a.val : a) === String(isSafe(b) ? b.val : b);
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a instanceof PyTuple !== b instanceof PyTuple || a.length !== b.length) return false;
    return a.every((item, i) => eq(item, b[i]));
  }
  if (isDict(a) && isDict(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => Object.hasOwn(b, key) && eq(a[key], b[key]));
  }
  return false;
}

export function ne(a: unknown, b: unknown): boolean {
  return !eq(a, b);
}

/** Sign of a - b for Python's ordering; throws where Python would (str < int, None < 1). */
export function order(op: string, a: unknown, b: unknown): number {
  if (isNumeric(a) && isNumeric(b)) {
    const x = toNumber(a);
    const y = toNumber(b);
    return x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN;
  }
  if (isStr(a) && isStr(b)) {
    const x = isSafe(a) ? a.val : (a as string);
    const y = isSafe(b) ? b.val : (b as string);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (Array.isArray(a) && Array.isArray(b) && a instanceof PyTuple === b instanceof PyTuple) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      if (!eq(a[i], b[i])) return order(op, a[i], b[i]);
    }
    return a.length - b.length;
  }
  if (a === undefined || b === undefined)
    throw new UndefinedError(`an undefined value cannot be compared with ${op}`);
  throw new PyTypeError(`'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

export function lt(a: unknown, b: unknown): boolean {
  return typeof a === "number" && typeof b === "number" ? a < b : order("<", a, b) < 0;
}
export function le(a: unknown, b: unknown): boolean {
  return typeof a === "number" && typeof b === "number" ? a <= b : order("<=", a, b) <= 0;
}
export function gt(a: unknown, b: unknown): boolean {
  return typeof a === "number" && typeof b === "number" ? a > b : order(">", a, b) > 0;
}
export function ge(a: unknown, b: unknown): boolean {
  return typeof a === "number" && typeof b === "number" ? a >= b : order(">=", a, b) >= 0;
}

/** Python's `item in container`. */
export function contains(container: unknown, item: unknown): boolean {
  if (isStr(container)) {
    if (!isStr(item))
      throw new PyTypeError(`'in <string>' requires string as left operand, not ${typeName(item)}`);
    return String(isSafe(container) ? container.val : container).includes(
      String(isSafe(item) ? item.val : item),
    );
  }
  if (Array.isArray(container)) return container.some((element) => eq(element, item));
  if (isDict(container)) return typeof item === "string" && Object.hasOwn(container, item);
  if (container === undefined) return false;
  throw new PyTypeError(`argument of type '${typeName(container)}' is not iterable`);
}

export const COMPARE_OPERATORS: Record<string, (a: unknown, b: unknown) => boolean> = {
  "==": eq,
  "!=": ne,
  "<": lt,
  "<=": le,
  ">": gt,
  ">=": ge,
  in: (a, b) => contains(b, a),
  notin: (a, b) => !contains(b, a),
};
