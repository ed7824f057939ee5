import { AppError } from "@svc/core";
import type { PageWindow } from "@svc/store";

// Lists are newest first with an opaque cursor (docs/decisions.md "Requests and responses"). The
// cursor names the last row of the previous page by (created_at, id), so inserts never shift
// pages. The repository reads the window (packages/store/src/repositories/paging.ts).

export interface PageRequest {
  limit?: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

interface CursorPosition {
  t: string;
  id: string;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(JSON.stringify({ t: createdAt.toISOString(), id } satisfies CursorPosition)).toString(
    "base64url",
  );
}

function decodeCursor(cursor: string): CursorPosition {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Partial<CursorPosition>;
    if (
      typeof parsed.t === "string" &&
      typeof parsed.id === "string" &&
      !Number.isNaN(Date.parse(parsed.t))
    ) {
      return { t: parsed.t, id: parsed.id };
    }
  } catch {
    // fall through to the error below
  }
  throw new AppError("validation", "cursor: not a cursor returned by this list", {
    errors: [{ loc: ["query", "cursor"], msg: "not a cursor returned by this list", type: "value_error" }],
  });
}

/** The window a repository reads for this request: the page size (clamped) and the cursor's row. */
export function pageWindow(request: PageRequest): PageWindow {
  const limit = Math.min(Math.max(request.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  const position = request.cursor ? decodeCursor(request.cursor) : null;
  return { limit, after: position ? { createdAt: new Date(position.t), id: position.id } : null };
}

/** Cuts the repository's `limit + 1` rows to a page and names the next page's cursor. */
export function toPage<Row extends { created_at: Date }, T>(
  rows: Row[],
  window: PageWindow,
  idOf: (row: Row) => string,
  serialize: (row: Row) => T,
): Page<T> {
  const items = rows.slice(0, window.limit);
  const last = items[items.length - 1];
  return {
    items: items.map(serialize),
    next_cursor: rows.length > window.limit && last ? encodeCursor(last.created_at, idOf(last)) : null,
  };
}
