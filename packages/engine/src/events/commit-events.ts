import { AppError } from "@svc/core";
import type { BulkItem, Queues } from "@svc/queue";
import { pgPoolOf, type PrismaClient } from "@svc/store";

/** An `events` row as accepted from the API (source `api`, status `pending`). */
export interface NewEvent {
  id: string;
  name: string;
  sender: string;
  agent_key: string | null;
  api_key_id: string;
  idempotency_key: string | null;
  request_hash: string | null;
  idempotency_expires_at: Date | null;
  recipient_external_id: string;
  recipient_profile: object | null;
  data: object;
  created_at: Date;
}

/** Per row: stored, taken by an earlier event with the same (sender, key), or refused. */
export type CommitOutcome = { stored: true } | { stored: false } | { error: unknown };

export interface CommitEventsDeps {
  prisma: PrismaClient;
  queues: Pick<Queues, "enqueueBulk">;
  logger: { warn(message: string, meta?: Record<string, unknown>): void };
}

// One statement for the whole batch: the rows travel as one JSON parameter (one plan, no
// per-row placeholders), and a row whose (sender, idempotency_key) exists is skipped, not an error.
// It is sent by `pg` as a named prepared statement (parsed once per connection), not through
// Prisma: on the accept path this costs less than half the CPU and a third less time per batch.
const INSERT_EVENTS_STATEMENT = "svc_insert_events";
export const INSERT_EVENTS_SQL = `
INSERT INTO events (id, name, source, sender, agent_key, api_key_id, idempotency_key, request_hash,
  idempotency_expires_at, recipient_external_id, recipient_profile, data, status, created_at)
SELECT r.id, r.name, 'api'::"EventSource", r.sender, r.agent_key, r.api_key_id, r.idempotency_key,
  r.request_hash, r.idempotency_expires_at, r.recipient_external_id, r.recipient_profile, r.data,
  'pending'::"EventStatus", r.created_at
FROM jsonb_to_recordset($1::jsonb) AS r(id text, name text, sender text, agent_key text,
  api_key_id text, idempotency_key text, request_hash text, idempotency_expires_at timestamptz,
  recipient_external_id text, recipient_profile jsonb, data jsonb, created_at timestamptz)
ON CONFLICT (sender, idempotency_key) DO NOTHING
RETURNING id`;

/**
 * Stores the rows with one INSERT, then hands the stored ones to the ingest queue as one job. A lost enqueue is only logged: the pending-events sweep re-enqueues them. When the batch
 * fails on one row's content, each row is retried alone so only that row is refused.
 */
export async function commitEvents(
  deps: CommitEventsDeps,
  rows: readonly NewEvent[],
): Promise<CommitOutcome[]> {
  let stored: Set<string>;
  try {
    stored = await insertEvents(deps.prisma, rows);
  } catch (error) {
    if (rows.length > 1 && isDataException(error)) {
      // One after another in arrival order, so of two requests sharing an idempotency key the
      // earlier one is stored and the later one answered from it, as in a batch without a bad row.
      const alone: CommitOutcome[] = [];
      for (const row of rows) alone.push((await commitEvents(deps, [row]))[0]!);
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

async function insertEvents(prisma: PrismaClient, rows: readonly NewEvent[]): Promise<Set<string>> {
  const inserted = await pgPoolOf(prisma).query<{ id: string }>({
    name: INSERT_EVENTS_STATEMENT,
    text: INSERT_EVENTS_SQL,
    values: [JSON.stringify(rows)],
  });
  return new Set(inserted.rows.map((row) => row.id));
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

/** SQLSTATE of an error `pg` raised for a statement Postgres refused, if any. */
export function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

// Class 22 "data exception": the row's content (e.g. \u0000, which Postgres text cannot hold).
const isDataException = (error: unknown): boolean => sqlStateOf(error)?.startsWith("22") ?? false;

// Postgres unreachable, out of connections or shutting down: by SQLSTATE class (connection
// exception, insufficient resources, operator intervention), by the socket's error code, or by
// `pg`'s own messages for a connection that ended or could not be had in time.
const TRANSIENT_SQLSTATE = /^(08|53|57)/;
const TRANSIENT_SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
const TRANSIENT_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/;

function isTransient(error: unknown): boolean {
  if (TRANSIENT_SQLSTATE.test(sqlStateOf(error) ?? "")) return true;
  const errors = error instanceof AggregateError ? error.errors : [error]; // one per address tried
  return errors.some((one: unknown) => {
    const code = (one as { code?: unknown } | null)?.code;
    if (typeof code === "string" && TRANSIENT_SOCKET_CODES.has(code)) return true;
    return one instanceof Error && TRANSIENT_MESSAGES.test(one.message);
  });
}

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
  if (!isTransient(error)) return error;
  deps.logger.warn("events not stored: database unavailable", {
    events: rows.length,
    sqlstate: sqlStateOf(error),
    error: error instanceof Error ? error.message : String(error),
  });
  return new AppError("unavailable", "the event could not be stored right now; retry the request", {
    cause: error,
  });
}
