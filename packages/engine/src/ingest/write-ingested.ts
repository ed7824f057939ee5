import type { EventRuleOutcome } from "@svc/core";
import type { MessageRow, TransactionClient } from "@svc/store";

// The write of an ingested event as one statement: its messages, its outcomes and the event's
// `processed` status, in the caller's transaction (so still atomic with everything it read under
// the lock). Rows travel as one JSON parameter each and Postgres types them per column
// (json_populate_recordset), which keeps the statement fixed whatever the row holds.

export interface IngestedWrite {
  eventId: string;
  recipientId: string;
  now: Date;
  messages: MessageRow[];
  outcomes: EventRuleOutcome[];
}

export async function writeIngested(tx: TransactionClient, write: IngestedWrite): Promise<void> {
  const outcomeRows = write.outcomes.map((outcome, position) => ({
    event_id: write.eventId,
    rule_key: outcome.rule,
    position,
    matched: outcome.matched,
    reason: outcome.reason ?? null,
    status: outcome.status ?? null,
    message_id: outcome.message_id ?? null,
    digest_id: outcome.digest_id ?? null,
  }));
  const parts: string[] = [];
  const params: unknown[] = [write.eventId, write.now.toISOString(), write.recipientId];
  if (write.messages.length > 0) {
    params.push(JSON.stringify(write.messages));
    parts.push(insertRows("messages", Object.keys(write.messages[0]!), params.length));
  }
  if (outcomeRows.length > 0) {
    params.push(JSON.stringify(outcomeRows));
    parts.push(insertRows("event_outcomes", Object.keys(outcomeRows[0]!), params.length));
  }
  const ctes = parts.map((sql, i) => `w${i} AS (${sql})`);
  await tx.$executeRawUnsafe(
    `${ctes.length > 0 ? `WITH ${ctes.join(", ")} ` : ""}UPDATE events
        SET status = 'processed', processed_at = $2::timestamptz, recipient_id = $3, attempts = attempts + 1
      WHERE id = $1`,
    ...params,
  );
}

// Only the named columns are written, so a column the rows do not carry keeps its default.
function insertRows(table: string, columns: string[], param: number): string {
  const list = columns.map((c) => `"${c}"`).join(", ");
  return `INSERT INTO ${table} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${table}, $${param}::json)`;
}
