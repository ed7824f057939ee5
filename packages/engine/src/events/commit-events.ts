import { AppError } from "@svc/core";
import type { BulkItem, Queues } from "@svc/queue";
import { classifyDatabaseError, insertAcceptedEvents, type NewEvent, type RootDatabase } from "@svc/store";

/** Per row: stored, taken by an earlier event with the same (sender, key), or refused. */
export type CommitOutcome = { stored: true } | { stored: false } | { error: unknown };

export interface CommitEventsDeps {
  prisma: RootDatabase;
  queues: Pick<Queues, "enqueueBulk">;
  logger: { warn(message: string, meta?: Record<string, unknown>): void };
}

/**
 * Stores the rows with one INSERT (insertAcceptedEvents, or `insert` for rows of one batch request), then hands the stored ones to the ingest
 * queue as one job. A lost enqueue is only logged: the pending-events sweep re-enqueues them. When
 * the batch fails on one row's content, each row is retried alone so only that row is refused.
 */
export async function commitEvents(
  deps: CommitEventsDeps,
  rows: readonly NewEvent[],
  insert: typeof insertAcceptedEvents = insertAcceptedEvents,
): Promise<CommitOutcome[]> {
  let stored: Set<string>;
  try {
    stored = await insert(deps.prisma, rows);
  } catch (error) {
    if (rows.length > 1 && isDataException(error)) {
      // One after another in arrival order, so of two requests sharing an idempotency key the
      // earlier one is stored and the later one answered from it, as in a batch without a bad row.
      const alone: CommitOutcome[] = [];
      for (const row of rows) alone.push((await commitEvents(deps, [row], insert))[0]!);
      return alone;
    }
    const refused = storeError(error, deps, rows);
    return rows.map(() => ({ error: refused }));
  }
  await enqueueIngest(
    deps,
    rows.filter((row) => stored.has(row.id)).map((row) => row.id),
  );
  return rows.map((row) => ({ stored: stored.has(row.id) }));
}

/**
 * One job for what one batch stored: a lone event keeps its own `ingest-event` job (id = event
 * id); several go as one `ingest-events` job, so a batch costs Redis one job, not one per event.
 */
export function ingestJobFor(
  eventIds: readonly string[],
): BulkItem<"ingest-event"> | BulkItem<"ingest-events"> {
  if (eventIds.length === 1) return { name: "ingest-event", payload: { eventId: eventIds[0]! } };
  return { name: "ingest-events", payload: { eventIds: [...eventIds] } };
}

async function enqueueIngest(deps: CommitEventsDeps, eventIds: string[]): Promise<void> {
  if (eventIds.length === 0) return;
  try {
    await deps.queues.enqueueBulk([ingestJobFor(eventIds)]);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    for (const eventId of eventIds) {
      deps.logger.warn("event stored but not enqueued; the pending-events sweep will enqueue it", {
        event_id: eventId,
        error: message,
      });
    }
  }
}

// The row's content cannot be stored (e.g. \u0000, which Postgres text cannot hold).
const isDataException = (error: unknown): boolean => classifyDatabaseError(error)?.kind === "data";

/** The error each request of a failed batch answers with: 422 for its content, 503 for an outage, else the error (500). */
function storeError(error: unknown, deps: CommitEventsDeps, rows: readonly NewEvent[]): unknown {
  if (isDataException(error)) {
    return new AppError(
      "validation",
      "the event holds text Postgres cannot store (such as the character \\u0000)",
      {
        errors: [
          {
            loc: ["body"],
            msg: "contains a character that cannot be stored (such as \\u0000)",
            type: "value_error",
          },
        ],
      },
    );
  }
  const classified = classifyDatabaseError(error);
  if (classified?.kind !== "unavailable") return error;
  deps.logger.warn("events not stored: database unavailable", {
    events: rows.length,
    code: classified.code,
    error: error instanceof Error ? error.message : String(error),
  });
  return new AppError("unavailable", "the event could not be stored right now; retry the request", {
    cause: error,
  });
}
