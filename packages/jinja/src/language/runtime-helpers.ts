import { iterate, unpack } from "./iterate";
import { SliceKey } from "./members";
import { Loop, Namespace } from "./objects";
import * as operators from "./operators";
import { escapeHtml, pyStr } from "./print";
import { isSafe, PyFloat, pyTuple, PyTypeError, SafeString, truthy } from "./values";

// What compiled templates call (as `runtime.py.*`, see compiler/expressions.ts) for Jinja2 semantics.

/** `{{ value }}`: str(value), HTML-escaped with autoescape unless it is Markup. */
export function output(value: unknown, autoescape: boolean): string {
  if (typeof value === "string") return autoescape ? escapeHtml(value) : value;
  if (isSafe(value)) return value.val;
  const text = pyStr(value);
  return autoescape ? escapeHtml(text) : text;
}

function compareChain(first: unknown, ...rest: unknown[]): boolean {
  let left = first;
  for (let i = 0; i < rest.length; i += 2) {
    const right = rest[i + 1];
    if (!operators.COMPARE_OPERATORS[rest[i] as string]!(left, right)) return false;
    left = right;
  }
  return true;
}

/** What a call `x(...)` calls: `loop(...)` re-enters a recursive loop. */
export function callable(target: unknown): unknown {
  if (!(target instanceof Loop)) return target;
  const { recurse } = target;
  if (recurse) return recurse;
  return () => {
    throw new PyTypeError("Tried to call non recursive loop. Maybe you forgot the 'recursive' modifier.");
  };
}

function setAttribute(target: unknown, name: string, value: unknown): void {
  if (!(target instanceof Namespace))
    throw new PyTypeError("cannot assign attribute on non-namespace object");
  target.attributes[name] = value;
}

export const py = {
  /** Scratch slot for `a or b` / `a and b`, read right after it is written (see compileOr). */
  t: undefined as unknown,
  truthy,
  add: operators.add,
  sub: operators.sub,
  mul: operators.mul,
  div: operators.div,
  floordiv: operators.floordiv,
  mod: operators.mod,
  pow: operators.pow,
  neg: operators.neg,
  pos: operators.pos,
  concat: operators.concat,
  eq: operators.eq,
  ne: operators.ne,
  lt: operators.lt,
  le: operators.le,
  gt: operators.gt,
  ge: operators.ge,
  isIn: (item: unknown, container: unknown) => operators.contains(container, item),
  notIn: (item: unknown, container: unknown) => !operators.contains(container, item),
  compareChain,
  float: (value: number) => new PyFloat(value),
  tuple: (items: unknown[]) => pyTuple(items),
  slice: (start: unknown, stop: unknown, step: unknown) => new SliceKey(start, stop, step),
  dictKey: (key: unknown) => pyStr(key),
  iterate,
  unpack,
  Loop,
  setAttribute,
  /** A macro's or block set's output: Markup with autoescape, plain text without (as Jinja2). */
  markup: (text: string, autoescape: boolean) => (autoescape ? new SafeString(text) : text),
};
