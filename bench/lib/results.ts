import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const FILE = path.resolve(__dirname, "../../docs/benchmarks.md");

/** Replaces (or appends) the section between `<!-- bench:<name> -->` markers in docs/benchmarks.md. */
export function writeSection(name: string, markdown: string): void {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  let doc = existsSync(FILE)
    ? readFileSync(FILE, "utf8")
    : "# Benchmarks\n\nMeasured by the scripts in `bench/`; rerun them to refresh these sections.\n";
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  doc =
    from >= 0 && to > from
      ? doc.slice(0, from) + block + doc.slice(to + end.length)
      : `${doc.trimEnd()}\n\n${block}\n`;
  writeFileSync(FILE, doc);
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
