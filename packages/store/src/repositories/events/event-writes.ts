import type { EventOutcomeRow, MessageRow } from "../../rows";
import { insertFromJsonSql } from "../json-rows";
import type { NewOutboxEntry } from "../outbox";
import { prismaOf, transactionOf, type Database, type Transaction } from "../../transaction";

// What ingest writes: each event's messages, outcomes and `processed` status in one statement, and
// the status changes around it.

/** One outcome entry as stored (position = order of evaluation). */
export type OutcomeWrite = Omit<EventOutcomeRow, "event_id" | "position">;

export interface IngestedEventWrite {
  eventId: string;
  recipientId: string;
  messages: readonly MessageRow[];
  outcomes: readonly OutcomeWrite[];
}

/**
 * The write of ingested events as one statement: their messages, their outcomes and each event's
 * `processed` status, in the caller's transaction (so still atomic with everything it read under
 * the locks). Rows travel as one JSON parameter each and Postgres types them per column
 * (json_populate_recordset), which keeps the statement fixed whatever the rows hold. The outbox
 * entries that report them (docs/outbox.md) go in with them.
 */
export async function writeIngestedEvents(
  tx: Transaction,
  now: Date,
  events: readonly IngestedEventWrite[],
  outbox: readonly NewOutboxEntry[] = [],
): Promise<void> {
  if (events.length === 0) return;
  const messages = events.flatMap((e) => e.messages);
  const outcomeRows = events.flatMap((e) =>
    e.outcomes.map((outcome, position) => ({ event_id: e.eventId, position, ...outcome })),
  );
  const processed = events.map((e) => ({ id: e.eventId, recipient_id: e.recipientId }));
  const params: unknown[] = [now.toISOString(), JSON.stringify(processed)];
  const parts: string[] = [];
  if (messages.length > 0) {
    params.push(JSON.stringify(messages));
    parts.push(insertFromJsonSql("messages", Object.keys(messages[0]!), params.length));
  }
  if (outcomeRows.length > 0) {
    params.push(JSON.stringify(outcomeRows));
    parts.push(insertFromJsonSql("event_outcomes", Object.keys(outcomeRows[0]!), params.length));
  }
  if (outbox.length > 0) {
    params.push(JSON.stringify(outbox.map((e) => ({ ...e, notify: e.notify ?? null }))));
    parts.push(
      `INSERT INTO outbox (topic, payload, notify) SELECT o.topic, o.payload, o.notify
         FROM json_to_recordset($${params.length}::json) AS o(topic text, payload jsonb, notify text)`,
    );
  }
  const ctes = parts.map((sql, i) => `w${i} AS (${sql})`);
  await transactionOf(tx).$executeRawUnsafe(
    `${ctes.length > 0 ? `WITH ${ctes.join(", ")} ` : ""}UPDATE events e
        SET status = 'processed', processed_at = $1::timestamptz, recipient_id = p.recipient_id, attempts = e.attempts + 1
       FROM json_to_recordset($2::json) AS p(id text, recipient_id text)
      WHERE e.id = p.id`,
    ...params,
  );
}

/** Replaces one rule's outcome of an event (a re-composition by `apply-policy`). */
export async function updateOutcome(db: Database, eventId: string, outcome: OutcomeWrite): Promise<void> {
  await prismaOf(db).eventOutcome.update({
    where: { event_id_rule_key: { event_id: eventId, rule_key: outcome.rule_key } },
    data: { reason: outcome.reason, status: outcome.status, message_id: outcome.message_id },
  });
}

/** Compare-and-set: only a still-pending event becomes `failed` (a committed one stays processed). */
export async function markEventFailed(db: Database, eventId: string, error: string): Promise<boolean> {
  const { count } = await prismaOf(db).event.updateMany({
    where: { id: eventId, status: "pending" },
    data: { status: "failed", error, attempts: { increment: 1 } },
  });
  return count === 1;
}
