import { checkBuilt, checkSize, tick } from "../../render-budget";
import { splitArgs } from "../call-args";
import { formatValue } from "../format";
import { pyLen } from "../iterate";
import { UndefinedError } from "../operators";
import { escapeHtml, pyStr } from "../print";
import { pyCapitalize, pyCenter, pyReplace, pySplitLines, pyStrip } from "../str-methods";
import { wrapText } from "../textwrap";
import { isSafe, PyTypeError, pyTuple, PyValueError, SafeString, truthy } from "../values";
import { filter, type Filter, type FilterContext } from "./helpers";

// Jinja2's text filters (filters.py), on str() of the value.

/** Markup's string methods return Markup, so filters built on them keep it. */
function keepMarkup(value: unknown, text: string): unknown {
  return isSafe(value) ? new SafeString(text) : text;
}

const WORD_START = /([-\s({[<]+)/u;

function truncate(
  value: unknown,
  length = 255,
  killwords: unknown = false,
  end: unknown = "...",
  leeway: unknown = 5,
) {
  const text = pyStr(value);
  const ellipsis = pyStr(end);
  const size = Number(length);
  if (size < ellipsis.length) throw new PyValueError(`expected length >= ${ellipsis.length}, got ${size}`);
  if (Number(leeway) < 0) throw new PyValueError(`expected leeway >= 0, got ${leeway}`);
  const chars = [...text];
  if (chars.length <= size + Number(leeway)) return value === undefined ? value : keepMarkup(value, text);
  const kept = chars.slice(0, size - ellipsis.length).join("");
  const cut = truthy(killwords) || kept.lastIndexOf(" ") === -1 ? kept : kept.slice(0, kept.lastIndexOf(" "));
  // Markup + str escapes the str, as MarkupSafe does.
  return isSafe(value) ? new SafeString(cut + escapeHtml(ellipsis)) : cut + ellipsis;
}

/** Filters that use the value as a str (`s + "\n"`, `s.splitlines()`) fail on undefined, as in Jinja2. */
function definedText(value: unknown, name: string): string {
  if (value === undefined) throw new UndefinedError(`${name} got an undefined value`);
  return pyStr(value);
}

function indent(value: unknown, width: unknown = 4, first: unknown = false, blank: unknown = false) {
  if (typeof width === "number") checkSize("indent() size", width);
  const indention = typeof width === "string" ? width : " ".repeat(Math.max(0, Number(width)));
  const text = `${definedText(value, "indent")}\n`;
  const lines = pySplitLines(text);
  checkBuilt("indent()", text.length + (lines.length + 1) * indention.length);
  let out: string;
  if (truthy(blank)) {
    out = lines.join(`\n${indention}`);
  } else {
    out = lines[0] ?? "";
    const rest = lines.slice(1);
    if (rest.length) out += `\n${rest.map((line) => (line ? indention + line : line)).join("\n")}`;
  }
  if (truthy(first)) out = indention + out;
  return isSafe(value) ? new SafeString(out) : out;
}

function replace(this: FilterContext, value: unknown, old: unknown, replacement: unknown, count: unknown) {
  const limit = count === undefined || count === null ? -1 : Number(count);
  const apply = (text: string, from: string, to: string) => pyReplace(text, from, to, limit);
  if (!this.env.opts.autoescape) return apply(pyStr(value), pyStr(old), pyStr(replacement));
  const escaped = (part: unknown) => (isSafe(part) ? part.val : escapeHtml(pyStr(part)));
  if (isSafe(value) || isSafe(old) || isSafe(replacement)) {
    return new SafeString(apply(escaped(value), escaped(old), escaped(replacement)));
  }
  return apply(pyStr(value), pyStr(old), pyStr(replacement));
}

function format(value: unknown, ...args: unknown[]) {
  const [positional, keywords] = splitArgs(args);
  const hasKeywords = Object.keys(keywords).length > 0;
  if (positional.length && hasKeywords)
    throw new PyTypeError("can't handle positional and keyword arguments at the same time");
  return formatValue(value, hasKeywords ? keywords : pyTuple(positional));
}

export const STRING_FILTERS: Record<string, Filter> = {
  capitalize: (value) => keepMarkup(value, pyCapitalize(pyStr(value))),
  center: filter("center", ["width"], (value, width = 80) =>
    keepMarkup(value, pyCenter(pyStr(value), Number(width))),
  ),
  format,
  indent: filter("indent", ["width", "first", "blank"], indent),
  lower: (value) => keepMarkup(value, pyStr(value).toLowerCase()),
  upper: (value) => keepMarkup(value, pyStr(value).toUpperCase()),
  replace: filter("replace", ["old", "new", "count"], replace),
  string: (value) => (isSafe(value) ? value : pyStr(value)),
  title: (value) =>
    pyStr(value)
      .split(WORD_START)
      .filter((part) => part)
      .map((part) => {
        const [head = "", ...tail] = [...part];
        return head.toUpperCase() + tail.join("").toLowerCase();
      })
      .join(""),
  trim: filter("trim", ["chars"], (value, chars) =>
    keepMarkup(value, pyStrip(pyStr(value), chars, true, true)),
  ),
  truncate: filter("truncate", ["length", "killwords", "end", "leeway"], truncate),
  wordcount: (value) => pyStr(value).match(/[\p{L}\p{N}_]+/gu)?.length ?? 0,
  wordwrap: filter(
    "wordwrap",
    ["width", "break_long_words", "wrapstring", "break_on_hyphens"],
    (value, width = 79, breakLong = true, wrapstring = "\n", breakHyphens = true) => {
      const separator = pyStr(wrapstring ?? "\n");
      // Jinja2: wrapstring.join(wrapstring.join(wrap(line)) for line in s.splitlines()).
      const wrapped = pySplitLines(definedText(value, "wordwrap")).map((line) => {
        tick();
        return wrapText(line, Number(width), truthy(breakLong), truthy(breakHyphens));
      });
      let size = 0;
      for (const lines of wrapped) for (const line of lines) size += line.length + separator.length;
      checkBuilt("wordwrap()", size + wrapped.length * separator.length);
      return wrapped.map((lines) => lines.join(separator)).join(separator);
    },
  ),
  length: (value) => pyLen(value),
  count: (value) => pyLen(value),
};
