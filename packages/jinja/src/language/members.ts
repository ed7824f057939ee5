import { bindArgs, splitArgs } from "./call-args";
import { JinjaObject } from "./objects";
import { eq } from "./operators";
import { strMethod } from "./str-methods";
import {
  GroupTuple,
  isDict,
  isSafe,
  PyDictView,
  PyTuple,
  pyTuple,
  PyTypeError,
  PyValueError,
  SafeString,
} from "./values";

// `obj.name`, `obj[key]` and `obj[a:b]` in templates, as Jinja2 resolves them on JSON-shaped data
// (docs/templates.md, "Values"): dict keys (a payload key wins over a dict method of the same
// name, a deliberate difference), Python's str, list and dict methods, indexes counted from the
// end when negative, and slices. Nothing else of a JavaScript object is reachable (no
// `constructor`, no `length`); what is missing is undefined, as with ChainableUndefined.

/** A slice subscript `[start:stop:step]`, as compiled. */
export class SliceKey {
  constructor(
    readonly start: unknown,
    readonly stop: unknown,
    readonly step: unknown,
  ) {}
}

function hasAstral(text: string): boolean {
  return /[\uD800-\uDFFF]/.test(text);
}

function sliceIndexes(length: number, key: SliceKey): number[] | null {
  const ints = [key.start, key.stop, key.step].every(
    (part) => part === null || part === undefined || (typeof part === "number" && Number.isInteger(part)),
  );
  if (!ints) return null;
  const step = (key.step as number | null) ?? 1;
  if (step === 0) throw new PyValueError("slice step cannot be zero");
  const bound = (value: unknown, fallback: number, low: number, high: number) => {
    if (value === null || value === undefined) return fallback;
    let n = value as number;
    if (n < 0) n += length;
    return Math.min(Math.max(n, low), high);
  };
  const out: number[] = [];
  if (step > 0) {
    const start = bound(key.start, 0, 0, length);
    const stop = bound(key.stop, length, 0, length);
    for (let i = start; i < stop; i += step) out.push(i);
  } else {
    const start = bound(key.start, length - 1, -1, length - 1);
    const stop = bound(key.stop, -1, -1, length - 1);
    for (let i = start; i > stop; i += step) out.push(i);
  }
  return out;
}

function sliceOf(obj: unknown, key: SliceKey): unknown {
  if (typeof obj === "string" || isSafe(obj)) {
    const text = isSafe(obj) ? obj.val : (obj as string);
    const chars = hasAstral(text) ? [...text] : text;
    const indexes = sliceIndexes(chars.length, key);
    if (!indexes) return undefined;
    const out = indexes.map((i) => chars[i]).join("");
    return isSafe(obj) ? new SafeString(out) : out;
  }
  if (Array.isArray(obj)) {
    const indexes = sliceIndexes(obj.length, key);
    if (!indexes) return undefined;
    const items = indexes.map((i) => obj[i]);
    return obj instanceof PyTuple ? pyTuple(items) : items;
  }
  return undefined;
}

function itemAt(items: ArrayLike<unknown>, key: unknown): unknown {
  if (typeof key !== "number" && typeof key !== "boolean") return undefined;
  const n = Number(key);
  if (!Number.isInteger(n)) return undefined;
  const index = n < 0 ? items.length + n : n;
  return index >= 0 && index < items.length ? items[index] : undefined;
}

type Method = (self: any, args: unknown[]) => unknown;

function popIndex(list: unknown[], index: unknown): unknown {
  if (list.length === 0) throw new PyValueError("pop from empty list");
  const n = index === undefined ? -1 : Number(index);
  const at = n < 0 ? list.length + n : n;
  if (at < 0 || at >= list.length) throw new PyValueError("pop index out of range");
  return list.splice(at, 1)[0];
}

function indexOf(list: unknown[], item: unknown): number {
  const at = list.findIndex((element) => eq(element, item));
  if (at === -1) throw new PyValueError("value is not in list");
  return at;
}

const TUPLE_METHODS: Record<string, [string[], Method]> = {
  count: [["value"], (list: unknown[], [item]) => list.filter((element) => eq(element, item)).length],
  index: [["value"], (list: unknown[], [item]) => indexOf(list, item)],
};

const LIST_METHODS: Record<string, [string[], Method]> = {
  ...TUPLE_METHODS,
  append: [["object"], (list: unknown[], [item]) => (list.push(item), null)],
  extend: [
    ["iterable"],
    (list: unknown[], [items]) => {
      // One push per item: spreading a long list into push() overflows the call stack.
      for (const item of items as Iterable<unknown>) list.push(item);
      return null;
    },
  ],
  insert: [["index", "object"], (list: unknown[], [at, item]) => (list.splice(Number(at), 0, item), null)],
  pop: [["index"], (list: unknown[], [at]) => popIndex(list, at)],
  remove: [["value"], (list: unknown[], [item]) => (list.splice(indexOf(list, item), 1), null)],
  reverse: [[], (list: unknown[]) => (list.reverse(), null)],
  copy: [[], (list: unknown[]) => [...list]],
  clear: [[], (list: unknown[]) => ((list.length = 0), null)],
};

const DICT_METHODS: Record<string, [string[], Method]> = {
  items: [
    [],
    (dict) =>
      PyDictView.make(
        "dict_items",
        Object.entries(dict).map((entry) => pyTuple(entry)),
      ),
  ],
  keys: [[], (dict) => PyDictView.make("dict_keys", Object.keys(dict))],
  values: [[], (dict) => PyDictView.make("dict_values", Object.values(dict))],
  get: [
    ["key", "default"],
    (dict, [key, fallback]) =>
      typeof key === "string" && Object.hasOwn(dict, key) ? dict[key] : (fallback ?? null),
  ],
  pop: [
    ["key", "default"],
    (dict, args) => {
      const [key, fallback] = args;
      if (typeof key === "string" && Object.hasOwn(dict, key)) {
        const value = dict[key];
        delete dict[key];
        return value;
      }
      if (args.length > 1) return fallback;
      throw new PyValueError(`KeyError: ${String(key)}`);
    },
  ],
  setdefault: [
    ["key", "default"],
    (dict, [key, fallback]) => {
      if (!Object.hasOwn(dict, String(key))) dict[String(key)] = fallback ?? null;
      return dict[String(key)];
    },
  ],
  copy: [[], (dict) => ({ ...dict })],
  clear: [[], (dict) => (Object.keys(dict).forEach((key) => delete dict[key]), null)],
};

function method(table: Record<string, [string[], Method]>, self: unknown, name: string): unknown {
  if (!Object.hasOwn(table, name)) return undefined;
  const [params, fn] = table[name]!;
  return (...args: unknown[]) => fn(self, bindArgs(name, args, params));
}

function dictUpdate(dict: Record<string, unknown>) {
  return (...args: unknown[]) => {
    const [positional, keywords] = splitArgs(args);
    const [other] = positional;
    if (isDict(other)) Object.assign(dict, other);
    else if (Array.isArray(other)) for (const [key, value] of other as unknown[][]) dict[String(key)] = value;
    else if (other !== undefined) throw new PyTypeError("dict.update() needs a dict or pairs");
    Object.assign(dict, keywords);
    return null;
  };
}

/** `obj.key` / `obj[key]` / `obj[a:b]`. */
export function lookupMember(obj: unknown, key: unknown): unknown {
  if (key instanceof SliceKey) return sliceOf(obj, key);
  if (typeof obj === "string") {
    if (typeof key === "string") return strMethod(obj, key);
    return itemAt(hasAstral(obj) ? [...obj] : obj, key);
  }
  if (Array.isArray(obj)) {
    if (obj instanceof GroupTuple && (key === "grouper" || key === "list")) return obj[key];
    if (typeof key === "string")
      return method(obj instanceof PyTuple ? TUPLE_METHODS : LIST_METHODS, obj, key);
    return itemAt(obj, key);
  }
  if (isDict(obj)) {
    if (typeof key !== "string") return undefined;
    if (Object.hasOwn(obj, key)) return obj[key];
    return key === "update" ? dictUpdate(obj) : method(DICT_METHODS, obj, key);
  }
  if (obj instanceof JinjaObject) return obj.member(key);
  if (isSafe(obj)) return lookupMember(obj.val, key);
  return undefined;
}
