import { tick } from "../../render-budget";
import { bindArgs } from "../call-args";
import { lookupMember } from "../members";
import { order } from "../operators";
import { isStr, pyTuple } from "../values";

// Shared by the filter families: Python-style signatures, Jinja2's attribute getters and
// Python's sort order.

/** nunjucks calls filters with its render context as `this`. */
export interface FilterContext {
  env: { opts: { autoescape: boolean }; getFilter(name: string): Filter; getTest(name: string): Test };
}
export type Filter = (this: FilterContext, value: unknown, ...args: unknown[]) => unknown;
export type Test = (this: FilterContext, value: unknown, ...args: unknown[]) => boolean;

/** A filter with Python parameters after the value (`params`); missing arguments are undefined. */
export function filter(
  name: string,
  params: readonly string[],
  fn: (this: FilterContext, value: unknown, ...args: any[]) => unknown,
): Filter {
  return function (this: FilterContext, value: unknown, ...args: unknown[]) {
    return fn.call(this, value, ...bindArgs(name, args, params));
  };
}

/** Jinja2's make_attrgetter: "a.b.0" looks up a, then b, then index 0. */
export function attrGetter(
  attribute: unknown,
  postprocess?: (value: unknown) => unknown,
  fallback?: unknown,
): (item: unknown) => unknown {
  const parts =
    attribute === undefined || attribute === null
      ? []
      : typeof attribute === "string"
        ? attribute.split(".").map((part) => (/^\d+$/.test(part) ? Number(part) : part))
        : [attribute];
  return (item) => {
    // Called once per item by the filters that walk a sequence (sort, groupby, unique, map, ...).
    tick();
    let value = item;
    for (const part of parts) {
      value = lookupMember(value, part);
      if (value === undefined && fallback !== undefined && fallback !== null) value = fallback;
    }
    return postprocess ? postprocess(value) : value;
  };
}

/** Jinja2's make_multi_attrgetter: "age,name" gives a tuple of both. */
export function multiAttrGetter(attribute: unknown, postprocess?: (value: unknown) => unknown) {
  const getters =
    typeof attribute === "string"
      ? attribute.split(",").map((part) => attrGetter(part, postprocess))
      : [attrGetter(attribute, postprocess)];
  return (item: unknown) => pyTuple(getters.map((get) => get(item)));
}

export function ignoreCase(value: unknown): unknown {
  return isStr(value) ? String(typeof value === "string" ? value : value.val).toLowerCase() : value;
}

/** Python's sorted(items, key=key, reverse=reverse): stable, and failing on mixed types. */
export function pySorted<T>(items: readonly T[], key: (item: T) => unknown, reverse: boolean): T[] {
  const keyed = items.map((item) => {
    tick();
    return { item, key: key(item) };
  });
  // A comparison of long values costs more than a template step: every one ticks the budget.
  keyed.sort((a, b) => {
    tick();
    return (reverse ? order("<", b.key, a.key) : order("<", a.key, b.key)) || 0;
  });
  return keyed.map((entry) => entry.item);
}
