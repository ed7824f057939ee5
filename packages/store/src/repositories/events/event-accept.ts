import { pgPoolOf } from "../../client";
import { wrapConnectionFailure } from "../../database-errors";
import type { PrismaClient } from "../../generated/prisma/client";
import type { PrismaClientOrTransaction } from "../../transaction";
import type { EventWithOutcomes } from "./event-reads";

// The accept path's writes (docs/architecture.md "Hot paths"): a batch of accepted events in one
// INSERT, and the idempotency look-ups around it.

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
 * Inserts the rows in one statement; returns the ids stored (a row whose sender and idempotency
 * key are taken is not). Errors are classified by classifyDatabaseError (database-errors.ts).
 */
export async function insertAcceptedEvents(
  prisma: PrismaClient,
  rows: readonly NewEvent[],
): Promise<Set<string>> {
  try {
    const inserted = await pgPoolOf(prisma).query<{ id: string }>({
      name: INSERT_EVENTS_STATEMENT,
      text: INSERT_EVENTS_SQL,
      values: [JSON.stringify(rows)],
    });
    return new Set(inserted.rows.map((row) => row.id));
  } catch (error) {
    throw wrapConnectionFailure(error);
  }
}

/** The event a sender stored under an idempotency key, with its outcomes. */
export function findEventByIdempotencyKey(
  db: PrismaClientOrTransaction,
  sender: string,
  idempotencyKey: string,
): Promise<EventWithOutcomes | null> {
  return db.event.findUnique({
    where: { sender_idempotency_key: { sender, idempotency_key: idempotencyKey } },
    include: { outcomes: true },
  });
}

/** Frees the event's idempotency key once its retention has run out (compare-and-set on that). */
export async function releaseEventIdempotencyKey(
  db: PrismaClientOrTransaction,
  eventId: string,
  now: Date,
): Promise<void> {
  await db.event.updateMany({
    where: { id: eventId, idempotency_expires_at: { lte: now } },
    data: { idempotency_key: null, idempotency_expires_at: null },
  });
}
