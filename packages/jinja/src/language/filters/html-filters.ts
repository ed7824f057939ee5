import { checkSize, tick } from "../../render-budget";
import { unescapeHtml } from "../html-entities";
import { pyJsonDumps } from "../json";
import { pformat } from "../pprint";
import { escapeHtml, pyStr } from "../print";
import { PY_SPACE } from "../str-methods";
import { isDict, isSafe, PyTypeError, PyValueError, SafeString, truthy } from "../values";
import { filter, type Filter, type FilterContext } from "./helpers";

// Jinja2's HTML and URL filters (filters.py, utils.py) and MarkupSafe's escape and striptags.

function escape(value: unknown): unknown {
  return isSafe(value) ? value : new SafeString(escapeHtml(pyStr(value)));
}

const WORDS = new RegExp(`([${PY_SPACE}]+)`);
const WORD = "\\p{L}\\p{N}_";
const HTTP = new RegExp(
  "^((https?://|www\\.)(([" +
    WORD +
    "%-]+\\.)+)?([a-z]{2,63}|xn--[" +
    WORD +
    "%]{2,59})" +
    "|([" +
    WORD +
    "%-]{2,63}\\.)+(com|net|int|edu|gov|org|info|mil)" +
    "|(https?://)((\\d{1,3}(\\.\\d{1,3}){3})|(\\[([\\da-f]{0,4}:){2}([\\da-f]{0,4}:?){1,6}\\])))" +
    "(?::\\d{1,5})?(?:[/?#]\\S*)?$",
  "iu",
);
const EMAIL = new RegExp(`^\\S+@[${WORD}][${WORD}.-]*\\.[${WORD}]+$`, "u");

/**
 * Length of the run of `)`, `>`, `.`, `,`, newlines and `&gt;` ending `text` (Jinja2's
 * `([)>.,\n]|&gt;)+$`), read backwards: the regular expression retries from every start of a
 * long run that does not reach the end, which is quadratic.
 */
function trailingPunctuation(text: string): number {
  let end = text.length;
  for (;;) {
    if (end >= 4 && text.startsWith("&gt;", end - 4)) end -= 4;
    else if (end > 0 && ")>.,\n".includes(text[end - 1]!)) end -= 1;
    else return text.length - end;
  }
}

function countOf(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** utils.urlize of Jinja2 3.1 (rel "noopener" is Jinja2's default policy). */
function urlize(
  this: FilterContext,
  value: unknown,
  trimLimit: unknown = null,
  nofollow: unknown = false,
  target: unknown = null,
  rel: unknown = null,
): unknown {
  const relParts = new Set(
    (rel === null || rel === undefined ? "" : pyStr(rel)).split(/\s+/).filter((p) => p),
  );
  if (truthy(nofollow)) relParts.add("nofollow");
  relParts.add("noopener");
  const relAttr = ` rel="${escapeHtml([...relParts].sort().join(" "))}"`;
  const targetAttr = target === null || target === undefined ? "" : ` target="${escapeHtml(pyStr(target))}"`;
  const trim = (url: string) =>
    trimLimit !== null && trimLimit !== undefined && url.length > Number(trimLimit)
      ? `${url.slice(0, Number(trimLimit))}...`
      : url;
  const words = escapeHtml(pyStr(value)).split(WORDS);
  const out = words.map((word) => {
    tick();
    let head = "";
    let middle = word;
    let tail = "";
    const lead = /^([(<]|&lt;)+/.exec(middle);
    if (lead) {
      head = lead[0];
      middle = middle.slice(head.length);
    }
    const trail = trailingPunctuation(middle);
    if (trail > 0) {
      tail = middle.slice(middle.length - trail);
      middle = middle.slice(0, middle.length - trail);
    }
    for (const [start, end] of [
      ["(", ")"],
      ["<", ">"],
      ["&lt;", "&gt;"],
    ] as const) {
      const starts = countOf(middle, start);
      if (starts <= countOf(middle, end)) continue;
      // Counted once, as Jinja2's range(min(...)) does.
      const moves = Math.min(starts, countOf(tail, end));
      for (let i = 0; i < moves; i++) {
        const endIndex = tail.indexOf(end) + end.length;
        middle += tail.slice(0, endIndex);
        tail = tail.slice(endIndex);
      }
    }
    if (HTTP.test(middle)) {
      const href =
        middle.startsWith("https://") || middle.startsWith("http://") ? middle : `https://${middle}`;
      middle = `<a href="${href}"${relAttr}${targetAttr}>${trim(middle)}</a>`;
    } else if (middle.startsWith("mailto:") && EMAIL.test(middle.slice(7))) {
      middle = `<a href="${middle}">${middle.slice(7)}</a>`;
    } else if (
      middle.includes("@") &&
      !middle.startsWith("www.") &&
      !middle.includes(":") &&
      EMAIL.test(middle)
    ) {
      middle = `<a href="mailto:${middle}">${middle}</a>`;
    }
    return head + middle + tail;
  });
  const text = out.join("");
  return this.env.opts.autoescape ? new SafeString(text) : text;
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/gu;
/** What encodeURIComponent keeps that urllib.parse.quote escapes. */
const KEPT_BY_ENCODE_URI = /[!'()*]/g;

/**
 * urllib.parse.quote: UTF-8, upper-case hex; "/" kept unless quoting for a query string (then a
 * space is "+"). encodeURIComponent does the work (a lone surrogate first becomes U+FFFD, as
 * UTF-8 encoding it does), then the few characters it keeps and Python does not are escaped.
 */
function urlQuote(value: unknown, forQuery: boolean): string {
  const quoted = encodeURIComponent(pyStr(value).replace(LONE_SURROGATE, "\uFFFD")).replace(
    KEPT_BY_ENCODE_URI,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return forQuery ? quoted.replace(/%20/g, "+") : quoted.replace(/%2F/g, "/");
}

function urlencode(value: unknown): string {
  if (
    typeof value === "string" ||
    isSafe(value) ||
    !(Array.isArray(value) || isDict(value) || value === undefined)
  )
    return urlQuote(value, false);
  const items = isDict(value) ? Object.entries(value) : ((value ?? []) as unknown[][]);
  return items.map(([key, item]) => `${urlQuote(key, true)}=${urlQuote(item, true)}`).join("&");
}

function xmlattr(this: FilterContext, value: unknown, autospace: unknown = true): unknown {
  if (!isDict(value)) throw new PyTypeError("xmlattr needs a dict");
  const items: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item === null || item === undefined) continue;
    if (/[\s/>=]/.test(key)) throw new PyValueError(`Invalid character in attribute name: '${key}'`);
    items.push(`${escapeHtml(key)}="${isSafe(item) ? item.val : escapeHtml(pyStr(item))}"`);
  }
  let text = items.join(" ");
  if (truthy(autospace) && text) text = ` ${text}`;
  return this.env.opts.autoescape ? new SafeString(text) : text;
}

/**
 * Every `open`…`close` span removed, as the regular expression `open.*?close` (DOTALL) would remove
 * them, in one pass: that expression tries every `open` without a later `close` against the whole
 * rest of the text, which is quadratic (260,000 `<` stalled the process for seconds).
 */
function removeSpans(text: string, open: string, close: string): string {
  let out = "";
  let from = 0;
  for (;;) {
    const start = text.indexOf(open, from);
    if (start === -1) break;
    const end = text.indexOf(close, start + open.length);
    // No `close` after this `open` means none after any later `open` either.
    if (end === -1) break;
    out += text.slice(from, start);
    from = end + close.length;
  }
  return from === 0 ? text : out + text.slice(from);
}

function striptags(value: unknown): string {
  const text = removeSpans(removeSpans(isSafe(value) ? value.val : pyStr(value), "<!--", "-->"), "<", ">")
    .split(WORDS)
    .filter((part, i) => i % 2 === 0 && part)
    .join(" ");
  return unescapeHtml(text);
}

function tojson(value: unknown, indent: unknown = null): SafeStringType {
  if (indent !== null && indent !== undefined) checkSize("tojson() indent", Number(indent));
  const json = pyJsonDumps(value, indent === null || indent === undefined ? null : Number(indent));
  return new SafeString(
    json.replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026").replace(/'/g, "\\u0027"),
  );
}
type SafeStringType = InstanceType<typeof SafeString>;

export const HTML_FILTERS: Record<string, Filter> = {
  escape,
  e: escape,
  forceescape: (value) => new SafeString(escapeHtml(isSafe(value) ? value.val : pyStr(value))),
  safe: (value) => (isSafe(value) ? value : new SafeString(pyStr(value))),
  striptags,
  urlize: filter("urlize", ["trim_url_limit", "nofollow", "target", "rel", "extra_schemes"], urlize),
  urlencode,
  xmlattr: filter("xmlattr", ["autospace"], xmlattr),
  tojson: filter("tojson", ["indent"], tojson),
  pprint: (value) => pformat(value),
  // svc additions kept from nunjucks (not in Jinja2): JSON.stringify, and newlines to <br />.
  dump: filter("dump", ["indent"], (value, indent) =>
    JSON.stringify(value, (_key, item) => (isSafe(item) ? item.val : item), indent as number | undefined),
  ),
  nl2br: (value) => {
    const text = pyStr(value).replace(/\r\n|\n/g, "<br />\n");
    return isSafe(value) ? new SafeString(text) : text;
  },
};
