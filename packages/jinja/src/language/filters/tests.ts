import { contains, eq, ge, gt, le, lt, mod, ne } from "../operators";
import { pyStr } from "../print";
import { isDict, isFloat, isNumeric, isSafe, isStr, PyFloat, truthy } from "../values";
import type { FilterContext, Test } from "./helpers";

// Jinja2's tests (tests.py), used as `x is name` and by select/reject.

const isLower = (text: string) => /[\p{Lu}\p{Ll}\p{Lt}]/u.test(text) && !/[\p{Lu}\p{Lt}]/u.test(text);
const isUpper = (text: string) => /[\p{Lu}\p{Ll}\p{Lt}]/u.test(text) && !/[\p{Ll}\p{Lt}]/u.test(text);

export const JINJA_TESTS: Record<string, Test> = {
  odd: (value) => eq(mod(value, 2), 1),
  even: (value) => eq(mod(value, 2), 0),
  divisibleby: (value, num) => eq(mod(value, num), 0),
  defined: (value) => value !== undefined,
  undefined: (value) => value === undefined,
  filter(this: FilterContext, value) {
    return typeof value === "string" && Object.hasOwn((this.env as any).filters, value);
  },
  test(this: FilterContext, value) {
    return typeof value === "string" && Object.hasOwn((this.env as any).tests, value);
  },
  none: (value) => value === null,
  boolean: (value) => typeof value === "boolean",
  false: (value) => value === false,
  true: (value) => value === true,
  integer: (value) => typeof value === "number" && Number.isInteger(value),
  float: (value) => isFloat(value),
  lower: (value) => isLower(pyStr(value)),
  upper: (value) => isUpper(pyStr(value)),
  string: (value) => isStr(value),
  mapping: (value) => isDict(value),
  number: (value) => isNumeric(value),
  sequence: (value) => isStr(value) || Array.isArray(value) || isDict(value) || value === undefined,
  iterable: (value) => isStr(value) || Array.isArray(value) || isDict(value) || value === undefined,
  callable: (value) => typeof value === "function",
  sameas: (value, other) =>
    value === other || (value instanceof PyFloat && other instanceof PyFloat && value.value === other.value),
  escaped: (value) => isSafe(value),
  in: (value, seq) => contains(seq, value),
  "==": eq,
  eq,
  equalto: eq,
  "!=": ne,
  ne,
  ">": gt,
  gt,
  greaterthan: gt,
  ">=": ge,
  ge,
  "<": lt,
  lt,
  lessthan: lt,
  "<=": le,
  le,
  // svc additions kept from nunjucks (not in Jinja2).
  truthy: (value) => truthy(value),
  falsy: (value) => !truthy(value),
  null: (value) => value === null,
};
