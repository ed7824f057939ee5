import { checkBuilt, checkSize, tick } from "../render-budget";
import { bindArgs, splitArgs } from "./call-args";
import { strFormat } from "./format";
import { pyStr } from "./print";
import { isStr, PyTuple, pyTuple, PyTypeError, PyValueError, truthy, typeName } from "./values";

// Python's str methods, as templates call them (`name.upper()`, `"{} items".format(n)`).

/** Characters Python's str.split() and str.strip() treat as whitespace. */
export const PY_SPACE =
  "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const LEADING_SPACE = new RegExp(`^[${PY_SPACE}]+`);
const SPACE_CHAR = new RegExp(`^[${PY_SPACE}]$`);
const SPACE_RUNS = new RegExp(`[${PY_SPACE}]+`);
/** Where Python's str.splitlines() breaks lines. */
const LINE_BREAK_CHARS = "\\n\\r\\v\\f\\x1c-\\x1e\\x85\\u2028\\u2029";
const LINE_BREAKS = new RegExp(`\\r\\n|[${LINE_BREAK_CHARS}]`);

type StrMethod = (self: string, args: unknown[]) => unknown;

function text(value: unknown, what: string): string {
  if (!isStr(value)) throw new PyTypeError(`${what} must be str, not ${typeName(value)}`);
  return pyStr(value);
}

function escapeRegExp(chars: string): string {
  return chars.replace(/[\\\]^-]/g, "\\$&");
}

/** str.splitlines(keepends). */
export function pySplitLines(self: string, keepEnds = false): string[] {
  const out: string[] = [];
  let rest = self;
  for (let m = LINE_BREAKS.exec(rest); m; m = LINE_BREAKS.exec(rest)) {
    tick();
    out.push(rest.slice(0, m.index + (keepEnds ? m[0].length : 0)));
    rest = rest.slice(m.index + m[0].length);
  }
  if (rest) out.push(rest);
  return out;
}

/**
 * `self` without the characters at its end that `strip` says to drop, read backwards: a pattern
 * such as `[ ]+$` retries from every start of a long run that does not reach the end (quadratic).
 */
function withoutTrailing(self: string, strip: (char: string) => boolean): string {
  let end = self.length;
  while (end > 0) {
    const low = self.charCodeAt(end - 1);
    const pair =
      end > 1 &&
      low >= 0xdc00 &&
      low <= 0xdfff &&
      self.charCodeAt(end - 2) >= 0xd800 &&
      self.charCodeAt(end - 2) <= 0xdbff;
    const size = pair ? 2 : 1;
    if (!strip(self.slice(end - size, end))) break;
    end -= size;
  }
  return end === self.length ? self : self.slice(0, end);
}

const isPySpace = (char: string): boolean => SPACE_CHAR.test(char);

export function pyStrip(self: string, chars: unknown, leading: boolean, trailing: boolean): string {
  if (chars === undefined || chars === null) {
    let out = self;
    if (leading) out = out.replace(LEADING_SPACE, "");
    if (trailing) out = withoutTrailing(out, isPySpace);
    return out;
  }
  const set = escapeRegExp(text(chars, "strip arg"));
  if (!set) return self;
  let out = self;
  if (leading) out = out.replace(new RegExp(`^[${set}]+`, "u"), "");
  if (trailing) {
    const members = new Set(pyStr(chars));
    out = withoutTrailing(out, (char) => members.has(char));
  }
  return out;
}

/** str.split(sep=None, maxsplit=-1). */
function pySplit(self: string, sep: unknown, maxsplit: unknown): string[] {
  const limit = maxsplit === undefined || maxsplit === null ? -1 : Number(maxsplit);
  if (sep === undefined || sep === null) {
    const out: string[] = [];
    let rest = self.replace(LEADING_SPACE, "");
    while (rest !== "") {
      const match = limit >= 0 && out.length === limit ? null : SPACE_RUNS.exec(rest);
      if (!match) {
        out.push(rest);
        break;
      }
      out.push(rest.slice(0, match.index));
      rest = rest.slice(match.index + match[0].length);
    }
    return out;
  }
  const separator = text(sep, "sep");
  if (separator === "") throw new PyValueError("empty separator");
  const parts = self.split(separator);
  if (limit < 0 || parts.length <= limit + 1) return parts;
  return [...parts.slice(0, limit), parts.slice(limit).join(separator)];
}

function pyRsplit(self: string, sep: unknown, maxsplit: unknown): string[] {
  const limit = maxsplit === undefined || maxsplit === null ? -1 : Number(maxsplit);
  if (limit < 0) return pySplit(self, sep, -1);
  if (sep === undefined || sep === null) {
    const reversed = pySplit([...self].reverse().join(""), null, limit);
    return reversed.map((part) => [...part].reverse().join("")).reverse();
  }
  const separator = text(sep, "sep");
  const parts = self.split(separator);
  if (parts.length <= limit + 1) return parts;
  return [parts.slice(0, parts.length - limit).join(separator), ...parts.slice(parts.length - limit)];
}

/** Python's str.center: the odd space goes left when the width is odd. */
export function pyCenter(self: string, width: number, fill = " "): string {
  checkSize("center() size", width);
  const margin = width - [...self].length;
  if (margin <= 0) return self;
  const left = Math.floor(margin / 2) + (margin & width & 1);
  return fill.repeat(left) + self + fill.repeat(margin - left);
}

/** parts.join(separator), after checking what it would build (a long separator multiplies). */
export function joinChecked(parts: string[], separator: string): string {
  let size = Math.max(0, parts.length - 1) * separator.length;
  for (const part of parts) size += part.length;
  checkBuilt("join()", size);
  return parts.join(separator);
}

/** Python's str.replace; what it would build is checked before it is built. */
export function pyReplace(self: string, old: string, replacement: string, count: number): string {
  if (count < 0) {
    if (old === "") {
      const chars = [...self];
      checkBuilt("replace()", self.length + (chars.length + 1) * replacement.length);
      return replacement + chars.join(replacement) + replacement;
    }
    const parts = self.split(old);
    checkBuilt("replace()", self.length + (parts.length - 1) * (replacement.length - old.length));
    return parts.join(replacement);
  }
  if (old === "") {
    // Python inserts before each of the first `count` characters (and at the end when count allows).
    const chars = [...self];
    const inserts = Math.min(count, chars.length + 1);
    checkBuilt("replace()", self.length + inserts * replacement.length);
    let out = "";
    for (let i = 0; i < inserts; i++) {
      tick();
      out += replacement + (chars[i] ?? "");
    }
    return out + chars.slice(inserts).join("");
  }
  let out = "";
  let from = 0;
  for (let done = 0; done < count; done++) {
    const at = self.indexOf(old, from);
    if (at === -1) break;
    out += self.slice(from, at) + replacement;
    from = at + old.length;
    if ((done & 1023) === 1023) checkBuilt("replace()", out.length);
  }
  return from === 0 ? self : out + self.slice(from);
}

function padWidth(width: unknown, self: string): number {
  checkSize("width", Number(width));
  return Math.max(0, Number(width) - [...self].length);
}

function range(self: string, start: unknown, end: unknown): [number, number] {
  const length = self.length;
  const clamp = (value: unknown, fallback: number) => {
    if (value === undefined || value === null) return fallback;
    const n = Number(value);
    return n < 0 ? Math.max(0, length + n) : Math.min(n, length);
  };
  return [clamp(start, 0), clamp(end, length)];
}

function prefixes(value: unknown): string[] {
  return value instanceof PyTuple ? value.map((item) => text(item, "prefix")) : [text(value, "prefix")];
}

const isCased = (self: string) => /[\p{Lu}\p{Ll}\p{Lt}]/u.test(self);

/** Python's str.title(): a letter after a non-letter is upper-cased, the rest lower-cased. */
function pyTitle(self: string): string {
  return self.replace(/\p{L}+/gu, (word) => {
    tick();
    return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
  });
}

export function pyCapitalize(self: string): string {
  const [first = "", ...rest] = [...self];
  return first.toUpperCase() + rest.join("").toLowerCase();
}

const methods: Record<string, [string[], StrMethod]> = {
  upper: [[], (s) => s.toUpperCase()],
  lower: [[], (s) => s.toLowerCase()],
  casefold: [[], (s) => s.toLowerCase()],
  swapcase: [
    [],
    (s) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join(""),
  ],
  capitalize: [[], (s) => pyCapitalize(s)],
  title: [[], (s) => pyTitle(s)],
  strip: [["chars"], (s, [chars]) => pyStrip(s, chars, true, true)],
  lstrip: [["chars"], (s, [chars]) => pyStrip(s, chars, true, false)],
  rstrip: [["chars"], (s, [chars]) => pyStrip(s, chars, false, true)],
  split: [["sep", "maxsplit"], (s, [sep, max]) => pySplit(s, sep, max)],
  rsplit: [["sep", "maxsplit"], (s, [sep, max]) => pyRsplit(s, sep, max)],
  splitlines: [["keepends"], (s, [keep]) => pySplitLines(s, truthy(keep))],
  join: [
    ["iterable"],
    (s, [items]) =>
      joinChecked(
        (Array.isArray(items) ? items : [...text(items, "join arg")]).map((item, i) => {
          if (!isStr(item))
            throw new PyTypeError(`sequence item ${i}: expected str instance, ${typeName(item)} found`);
          return pyStr(item);
        }),
        s,
      ),
  ],
  replace: [
    ["old", "new", "count"],
    (s, [old, replacement, count]) =>
      pyReplace(
        s,
        text(old, "replace() argument 1"),
        text(replacement, "replace() argument 2"),
        count === undefined ? -1 : Number(count),
      ),
  ],
  startswith: [
    ["prefix", "start", "end"],
    (s, [prefix, start, end]) => {
      const [from, to] = range(s, start, end);
      return prefixes(prefix).some((p) => from + p.length <= to && s.startsWith(p, from));
    },
  ],
  endswith: [
    ["suffix", "start", "end"],
    (s, [suffix, start, end]) => {
      const [from, to] = range(s, start, end);
      return prefixes(suffix).some((p) => to - p.length >= from && s.slice(from, to).endsWith(p));
    },
  ],
  find: [["sub", "start", "end"], (s, [sub, start, end]) => find(s, sub, start, end, false)],
  rfind: [["sub", "start", "end"], (s, [sub, start, end]) => find(s, sub, start, end, true)],
  index: [["sub", "start", "end"], (s, [sub, start, end]) => found(find(s, sub, start, end, false))],
  rindex: [["sub", "start", "end"], (s, [sub, start, end]) => found(find(s, sub, start, end, true))],
  count: [
    ["sub", "start", "end"],
    (s, [sub, start, end]) => {
      const [from, to] = range(s, start, end);
      const needle = text(sub, "count arg");
      const part = s.slice(from, to);
      return needle === "" ? [...part].length + 1 : part.split(needle).length - 1;
    },
  ],
  center: [
    ["width", "fillchar"],
    (s, [w, fill]) => pyCenter(s, Number(w), fill === undefined ? " " : text(fill, "fillchar")),
  ],
  ljust: [
    ["width", "fillchar"],
    (s, [w, fill]) => s + (fill === undefined ? " " : text(fill, "fillchar")).repeat(padWidth(w, s)),
  ],
  rjust: [
    ["width", "fillchar"],
    (s, [w, fill]) => (fill === undefined ? " " : text(fill, "fillchar")).repeat(padWidth(w, s)) + s,
  ],
  zfill: [
    ["width"],
    (s, [w]) => {
      const sign = /^[+-]/.test(s) ? s[0]! : "";
      return sign + "0".repeat(padWidth(w, s)) + s.slice(sign.length);
    },
  ],
  partition: [["sep"], (s, [sep]) => partition(s, text(sep, "sep"), false)],
  rpartition: [["sep"], (s, [sep]) => partition(s, text(sep, "sep"), true)],
  removeprefix: [["prefix"], (s, [p]) => (s.startsWith(text(p, "prefix")) ? s.slice(pyStr(p).length) : s)],
  removesuffix: [
    ["suffix"],
    (s, [p]) => (pyStr(p) && s.endsWith(text(p, "suffix")) ? s.slice(0, -pyStr(p).length) : s),
  ],
  isalpha: [[], (s) => /^\p{L}+$/u.test(s)],
  isalnum: [[], (s) => /^[\p{L}\p{Nd}\p{Nl}\p{No}]+$/u.test(s)],
  isdigit: [[], (s) => /^[\p{Nd}\u00b2\u00b3\u00b9\u2070-\u2079\u2080-\u2089]+$/u.test(s)],
  isdecimal: [[], (s) => /^\p{Nd}+$/u.test(s)],
  isnumeric: [[], (s) => /^[\p{Nd}\p{Nl}\p{No}]+$/u.test(s)],
  isspace: [[], (s) => new RegExp(`^[${PY_SPACE}]+$`).test(s)],
  islower: [[], (s) => isCased(s) && !/[\p{Lu}\p{Lt}]/u.test(s)],
  isupper: [[], (s) => isCased(s) && !/[\p{Ll}\p{Lt}]/u.test(s)],
  istitle: [[], (s) => isCased(s) && pyTitle(s) === s],
};

/** Every str method a template can call, `format` included. */
export const STR_METHOD_NAMES: readonly string[] = ["format", ...Object.keys(methods)];

function find(s: string, sub: unknown, start: unknown, end: unknown, fromRight: boolean): number {
  const [from, to] = range(s, start, end);
  const needle = text(sub, "find arg");
  const part = s.slice(from, to);
  const at = fromRight ? part.lastIndexOf(needle) : part.indexOf(needle);
  return at === -1 ? -1 : at + from;
}

function found(index: number): number {
  if (index === -1) throw new PyValueError("substring not found");
  return index;
}

function partition(s: string, sep: string, fromRight: boolean): PyTuple {
  if (sep === "") throw new PyValueError("empty separator");
  const at = fromRight ? s.lastIndexOf(sep) : s.indexOf(sep);
  if (at === -1) return fromRight ? pyTuple(["", "", s]) : pyTuple([s, "", ""]);
  return pyTuple([s.slice(0, at), sep, s.slice(at + sep.length)]);
}

/** `s.name` for a str method name: the bound method, or undefined. */
export function strMethod(self: string, name: string): ((...args: unknown[]) => unknown) | undefined {
  if (name === "format") {
    return (...args: unknown[]) => {
      const [positional, keywords] = splitArgs(args);
      return strFormat(self, positional, keywords);
    };
  }
  if (!Object.hasOwn(methods, name)) return undefined;
  const [params, method] = methods[name]!;
  return (...args: unknown[]) => method(self, bindArgs(name, args, params));
}
