import { checkSize, tick } from "../../render-budget";
import { splitArgs } from "../call-args";
import { iterate } from "../iterate";
import { add, eq, order } from "../operators";
import { escapeHtml, pyRepr, pyStr } from "../print";
import { joinChecked } from "../str-methods";
import {
  GroupTuple,
  isDict,
  isNumeric,
  isSafe,
  isStr,
  PyTuple,
  pyTuple,
  PyTypeError,
  SafeString,
  toNumber,
  truthy,
  typeName,
} from "../values";
import {
  attrGetter,
  filter,
  ignoreCase,
  multiAttrGetter,
  pySorted,
  type Filter,
  type FilterContext,
} from "./helpers";

// Jinja2's filters on sequences (filters.py). Where Jinja2 returns a generator (map, select,
// reject, selectattr, rejectattr, unique, batch, slice, items, reverse of a list) svc returns a
// list, which prints as one: a documented difference.

function keyFunction(caseSensitive: unknown, attribute: unknown) {
  return attrGetter(attribute, truthy(caseSensitive) ? undefined : ignoreCase);
}

/** Python's hashing for unique(): equal numbers (1, 1.0, True) and equal strings collide. */
function hashKey(value: unknown): string {
  if (isNumeric(value)) return `n${toNumber(value)}`;
  if (isStr(value)) return `s${pyStr(value)}`;
  if (value instanceof PyTuple) return `t${value.map(hashKey).join("\u0000")}`;
  if (Array.isArray(value) || isDict(value)) throw new PyTypeError(`unhashable type: '${typeName(value)}'`);
  return `o${pyRepr(value)}`;
}

function minOrMax(sign: number) {
  return filter(
    sign < 0 ? "min" : "max",
    ["case_sensitive", "attribute"],
    (value, caseSensitive, attribute) => {
      const items = iterate(value);
      if (items.length === 0) return undefined;
      const key = keyFunction(caseSensitive, attribute);
      let best = items[0];
      let bestKey = key(best);
      for (const item of items.slice(1)) {
        const itemKey = key(item);
        if (order(sign < 0 ? "<" : ">", itemKey, bestKey) * sign > 0) {
          best = item;
          bestKey = itemKey;
        }
      }
      return best;
    },
  );
}

function selectOrReject(keep: boolean, byAttribute: boolean): Filter {
  return function (this: FilterContext, value: unknown, ...args: unknown[]) {
    if (!truthy(value)) return [];
    const [positional, keywords] = splitArgs(args);
    let offset = 0;
    let pick = (item: unknown) => item;
    if (byAttribute) {
      if (positional.length === 0) throw new PyTypeError("Missing parameter for attribute name");
      pick = attrGetter(positional[0]);
      offset = 1;
    }
    const testName = positional[offset];
    const testArgs = positional.slice(offset + 1);
    if (Object.keys(keywords).length) testArgs.push({ ...keywords, __keywords: true });
    const test =
      testName === undefined
        ? truthy
        : (item: unknown) => this.env.getTest(String(testName)).call(this, item, ...testArgs);
    return iterate(value).filter((item) => {
      tick();
      return test(pick(item)) === keep;
    });
  };
}

function map(this: FilterContext, value: unknown, ...args: unknown[]) {
  if (!truthy(value)) return [];
  const [positional, keywords] = splitArgs(args);
  if (positional.length === 0 && Object.hasOwn(keywords, "attribute")) {
    const { attribute, default: fallback, ...rest } = keywords;
    const unexpected = Object.keys(rest)[0];
    if (unexpected !== undefined) throw new PyTypeError(`Unexpected keyword argument '${unexpected}'`);
    return iterate(value).map(attrGetter(attribute, undefined, fallback));
  }
  if (positional.length === 0) throw new PyTypeError("map requires a filter argument");
  const [name, ...filterArgs] = positional;
  if (Object.keys(keywords).length) filterArgs.push({ ...keywords, __keywords: true });
  const apply = this.env.getFilter(String(name));
  return iterate(value).map((item) => {
    tick();
    return apply.call(this, item, ...filterArgs);
  });
}

function join(this: FilterContext, value: unknown, separator: unknown = "", attribute: unknown = null) {
  let items = iterate(value);
  if (attribute !== null && attribute !== undefined) items = items.map(attrGetter(attribute));
  if (!this.env.opts.autoescape || isSafe(separator) || !items.some(isSafe))
    return joinChecked(items.map(pyStr), pyStr(separator));
  const escaped = (part: unknown) => (isSafe(part) ? part.val : escapeHtml(pyStr(part)));
  return new SafeString(joinChecked(items.map(escaped), escaped(separator)));
}

function groupby(
  value: unknown,
  attribute: unknown,
  fallback: unknown = null,
  caseSensitive: unknown = false,
) {
  const sensitive = truthy(caseSensitive);
  const key = attrGetter(attribute, sensitive ? undefined : ignoreCase, fallback);
  const groups: [unknown, unknown[]][] = [];
  for (const item of pySorted(iterate(value), key, false)) {
    const itemKey = key(item);
    const last = groups[groups.length - 1];
    if (last && eq(last[0], itemKey)) last[1].push(item);
    else groups.push([itemKey, [item]]);
  }
  const original = attrGetter(attribute, undefined, fallback);
  return groups.map(([groupKey, items]) => new GroupTuple(sensitive ? groupKey : original(items[0]), items));
}

function sum(value: unknown, attribute: unknown = null, start: unknown = 0) {
  if (isStr(start)) throw new PyTypeError("sum() can't sum strings [use ''.join(seq) instead]");
  let items = iterate(value);
  if (attribute !== null && attribute !== undefined) items = items.map(attrGetter(attribute));
  // Adding lists copies them, so a long sum of lists is quadratic (in Python too): every step ticks.
  return items.reduce<unknown>((total, item) => {
    tick();
    return add(total, item);
  }, start);
}

export const LIST_FILTERS: Record<string, Filter> = {
  batch: filter("batch", ["linecount", "fill_with"], (value, lineCount, fillWith = null) => {
    const size = Number(lineCount);
    checkSize("batch() size", size);
    const rows: unknown[][] = [];
    let row: unknown[] = [];
    for (const item of iterate(value)) {
      tick();
      if (row.length === size) {
        rows.push(row);
        row = [];
      }
      row.push(item);
    }
    if (row.length) {
      if (fillWith !== null && row.length < size) while (row.length < size) row.push(fillWith);
      rows.push(row);
    }
    return rows;
  }),
  slice: filter("slice", ["slices", "fill_with"], (value, slices, fillWith = null) => {
    const count = Number(slices);
    checkSize("slice() size", count);
    const items = iterate(value);
    const perSlice = Math.floor(items.length / count);
    const withExtra = items.length % count;
    const out: unknown[][] = [];
    let offset = 0;
    for (let n = 0; n < count; n++) {
      tick();
      const start = offset + n * perSlice;
      if (n < withExtra) offset += 1;
      const part = items.slice(start, offset + (n + 1) * perSlice);
      if (fillWith !== null && n >= withExtra) part.push(fillWith);
      out.push(part);
    }
    return out;
  }),
  first: (value) => iterate(value)[0],
  last: (value) => {
    const items = iterate(value);
    return items[items.length - 1];
  },
  random: (value) => {
    const items = iterate(value);
    return items[Math.floor(Math.random() * items.length)];
  },
  list: (value) => [...iterate(value)],
  reverse: (value) => {
    if (typeof value === "string") return [...value].reverse().join("");
    if (isSafe(value)) return new SafeString([...value.val].reverse().join(""));
    return [...iterate(value)].reverse();
  },
  join: filter("join", ["d", "attribute"], join),
  sort: filter(
    "sort",
    ["reverse", "case_sensitive", "attribute"],
    (value, reverse, caseSensitive, attribute) =>
      pySorted(
        iterate(value),
        multiAttrGetter(attribute, truthy(caseSensitive) ? undefined : ignoreCase),
        truthy(reverse),
      ),
  ),
  dictsort: filter(
    "dictsort",
    ["case_sensitive", "by", "reverse"],
    (value, caseSensitive, by = "key", reverse) => {
      if (by !== "key" && by !== "value")
        throw new PyTypeError('You can only sort by either "key" or "value"');
      if (!isDict(value)) throw new PyTypeError("dictsort needs a dict");
      const position = by === "key" ? 0 : 1;
      const entries = Object.entries(value).map((entry) => pyTuple(entry));
      const key = (entry: unknown[]) =>
        truthy(caseSensitive) ? entry[position] : ignoreCase(entry[position]);
      return pySorted(entries, key, truthy(reverse));
    },
  ),
  items: (value) => {
    if (value === undefined) return [];
    if (!isDict(value)) throw new PyTypeError("Can only get item pairs from a mapping.");
    return Object.entries(value).map((entry) => pyTuple(entry));
  },
  unique: filter("unique", ["case_sensitive", "attribute"], (value, caseSensitive, attribute) => {
    const key = keyFunction(caseSensitive, attribute);
    const seen = new Set<string>();
    return iterate(value).filter((item) => {
      const hash = hashKey(key(item));
      if (seen.has(hash)) return false;
      seen.add(hash);
      return true;
    });
  }),
  min: minOrMax(-1),
  max: minOrMax(1),
  groupby: filter("groupby", ["attribute", "default", "case_sensitive"], groupby),
  sum: filter("sum", ["attribute", "start"], sum),
  map,
  select: selectOrReject(true, false),
  reject: selectOrReject(false, false),
  selectattr: selectOrReject(true, true),
  rejectattr: selectOrReject(false, true),
};
