import { checkDeadline, tick } from "../render-budget";
import { pyRepr, strRepr } from "./print";
import { pySplitLines } from "./str-methods";
import { isDict, PyTuple } from "./values";

// Python's pprint.pformat(value) (width 80, dicts sorted by key), as Jinja2's `pprint` filter
// uses it: the repr when it fits, else one item per line, and long strings split into chunks.

const WIDTH = 80;

const len = (text: string) => [...text].length;

function isPlainList(value: unknown): value is unknown[] {
  return (
    Array.isArray(value) &&
    (Object.getPrototypeOf(value) === Array.prototype || value.constructor.name === "Array")
  );
}

function isPlainTuple(value: unknown): value is PyTuple {
  return value instanceof PyTuple && Object.getPrototypeOf(value) === PyTuple.prototype;
}

function sortedEntries(dict: Record<string, unknown>): [string, unknown][] {
  return Object.keys(dict)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((key) => [key, dict[key]]);
}

/** repr() with dict keys sorted, as pprint writes what fits on a line. */
function safeRepr(value: unknown): string {
  if (isDict(value))
    return `{${sortedEntries(value)
      .map(([k, v]) => `${strRepr(k)}: ${safeRepr(v)}`)
      .join(", ")}}`;
  if (isPlainList(value)) return `[${value.map(safeRepr).join(", ")}]`;
  if (isPlainTuple(value))
    return value.length === 1 ? `(${safeRepr(value[0])},)` : `(${value.map(safeRepr).join(", ")})`;
  return pyRepr(value);
}

function formatItems(
  items: unknown[],
  out: string[],
  indent: number,
  allowance: number,
  level: number,
): void {
  const inner = indent + 1;
  items.forEach((item, i) => {
    if (i > 0) out.push(`,\n${" ".repeat(inner)}`);
    format(item, out, inner, i === items.length - 1 ? allowance : 1, level);
  });
}

function formatString(text: string, out: string[], indent: number, allowance: number, level: number): void {
  const lines = pySplitLines(text, true);
  if (level === 1) {
    indent += 1;
    allowance += 1;
  }
  const chunks: string[] = [];
  lines.forEach((line, i) => {
    tick();
    const last = i === lines.length - 1;
    const rep = strRepr(line);
    if (len(rep) <= WIDTH - indent - (last ? allowance : 0)) {
      chunks.push(rep);
      return;
    }
    const parts = line.match(/\S*\s*/g)!.filter((part) => part);
    let current = "";
    parts.forEach((part, j) => {
      tick();
      const candidate = current + part;
      const room = WIDTH - indent - (j === parts.length - 1 && last ? allowance : 0);
      if (len(strRepr(candidate)) > room) {
        if (current) chunks.push(strRepr(current));
        current = part;
      } else {
        current = candidate;
      }
    });
    if (current) chunks.push(strRepr(current));
  });
  if (chunks.length === 1) {
    out.push(chunks[0]!);
    return;
  }
  const body = chunks.join(`\n${" ".repeat(indent)}`);
  out.push(level === 1 ? `(${body})` : body);
}

function format(value: unknown, out: string[], indent: number, allowance: number, level: number): void {
  const rep = safeRepr(value);
  // Each level reprints what it holds (Python's pprint does too): deep values cost depth × size.
  if (rep.length > 4096) checkDeadline();
  else tick();
  if (len(rep) <= WIDTH - indent - allowance) {
    out.push(rep);
    return;
  }
  if (isDict(value)) {
    out.push("{");
    const entries = sortedEntries(value);
    const inner = indent + 1;
    entries.forEach(([key, item], i) => {
      const keyRep = strRepr(key);
      out.push(`${keyRep}: `);
      format(item, out, inner + len(keyRep) + 2, i === entries.length - 1 ? allowance + 1 : 1, level + 1);
      if (i < entries.length - 1) out.push(`,\n${" ".repeat(inner)}`);
    });
    out.push("}");
  } else if (isPlainList(value)) {
    out.push("[");
    formatItems(value, out, indent, allowance + 1, level + 1);
    out.push("]");
  } else if (isPlainTuple(value)) {
    out.push("(");
    formatItems([...value], out, indent, allowance + (value.length === 1 ? 2 : 1), level + 1);
    out.push(value.length === 1 ? ",)" : ")");
  } else if (typeof value === "string" && value) {
    formatString(value, out, indent, allowance, level + 1);
  } else {
    out.push(rep);
  }
}

export function pformat(value: unknown): string {
  const out: string[] = [];
  format(value, out, 0, 0, 0);
  return out.join("");
}
