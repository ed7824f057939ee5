import { formatTable } from "./format-table";
import type { Session } from "./session";

// Commands that print API resources: a readable table on a terminal, JSON (as the API answered
// it) with --json or when stdout is not a terminal, so pipes and scripts get JSON by default.

export interface OutputChoice {
  json?: boolean;
}

export const wantsJson = (s: Session, options: OutputChoice): boolean =>
  options.json === true || s.io.stdout.isTTY !== true;

/** One resource: JSON, or its fields as two columns. */
export function printRecord(s: Session, options: OutputChoice, value: object, fields?: string[]): void {
  if (wantsJson(s, options)) return s.out(JSON.stringify(value, null, 2));
  const entries = Object.entries(value).filter(([key]) => !fields || fields.includes(key));
  for (const line of formatTable(entries.map(([key, v]) => [key, cell(v)]))) s.out(line);
}

/** A page `{items, next_cursor}`: JSON, or a table with `columns` and a hint for the next page. */
export function printPage<T extends object>(
  s: Session,
  options: OutputChoice,
  page: { items: T[]; next_cursor: string | null },
  columns: [header: string, value: (item: T) => unknown][],
  more: (cursor: string) => string,
): void {
  if (wantsJson(s, options)) return s.out(JSON.stringify(page, null, 2));
  if (page.items.length === 0) return s.err("nothing found");
  const rows = page.items.map((item) => columns.map(([, value]) => cell(value(item))));
  for (const line of formatTable([columns.map(([header]) => header), ...rows])) s.out(line);
  if (page.next_cursor) s.err(`more: ${more(page.next_cursor)}`);
}

/** A table cell: `-` for nothing, JSON for objects, one line. */
function cell(value: unknown): string {
  if (value === null || value === undefined || value === "") return "-";
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return text.replace(/\s*\n\s*/g, " ");
}
