// One page of a list ordered newest first by (created_at, id): the engine turns an opaque cursor
// into a PageWindow, a repository fetches `limit + 1` rows after that position (one extra to know
// whether a next page exists), and the engine cuts the page and encodes the next cursor.

/** The last row of the previous page; rows strictly older than it come next. */
export interface PagePosition {
  createdAt: Date;
  id: string;
}

export interface PageWindow {
  /** Rows wanted on the page (the repository returns up to one more). */
  limit: number;
  after: PagePosition | null;
}

/** Prisma `where`, `orderBy` and `take` for a window over a table keyed by `idField`. */
export function pageArgs<F extends string>(window: PageWindow, idField: F) {
  const { after } = window;
  return {
    where: after
      ? {
          OR: [
            { created_at: { lt: after.createdAt } },
            { created_at: after.createdAt, [idField]: { lt: after.id } },
          ],
        }
      : {},
    orderBy: [{ created_at: "desc" as const }, { [idField]: "desc" as const }],
    take: window.limit + 1,
  };
}
