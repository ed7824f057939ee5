import { AppError } from "@svc/core";

// Lists are newest first with an opaque cursor (DECISIONS "Requests and responses"). The cursor
// names the last row of the previous page by (created_at, id), so inserts never shift pages.

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

export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(JSON.stringify({ t: createdAt.toISOString(), id } satisfies CursorPosition)).toString(
    "base64url",
  );
}

export function decodeCursor(cursor: string): CursorPosition {
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

/**
 * Prisma `where` and `orderBy` for one page over a table ordered by (created_at, <idField>) desc.
 * Fetch `take` rows (one more than the limit) and hand them to `toPage`.
 */
export function pageQuery<F extends string>(request: PageRequest, idField: F) {
  const limit = Math.min(Math.max(request.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  const position = request.cursor ? decodeCursor(request.cursor) : null;
  const after = position
    ? {
        OR: [
          { created_at: { lt: new Date(position.t) } },
          { created_at: new Date(position.t), [idField]: { lt: position.id } },
        ],
      }
    : {};
  return {
    limit,
    where: after,
    orderBy: [{ created_at: "desc" as const }, { [idField]: "desc" as const }],
    take: limit + 1,
  };
}

export function toPage<Row extends { created_at: Date }, T>(
  rows: Row[],
  limit: number,
  idOf: (row: Row) => string,
  serialize: (row: Row) => T,
): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(serialize),
    next_cursor: rows.length > limit && last ? encodeCursor(last.created_at, idOf(last)) : null,
  };
}
