import type { EventRuleOutcome } from "@svc/core";
import type { EventOutcomeRow, EventWithOutcomes, NewEvent } from "@svc/store";

/** One outcome entry (docs/events.md, "Outcomes"): members that do not apply are left out. */
function serializeOutcome(row: EventOutcomeRow): EventRuleOutcome {
  const outcome: EventRuleOutcome = { rule: row.rule_key, matched: row.matched };
  if (row.reason !== null) outcome.reason = row.reason;
  if (row.status !== null) outcome.status = row.status;
  if (row.message_id !== null) outcome.message_id = row.message_id;
  if (row.digest_id !== null) outcome.digest_id = row.digest_id;
  return outcome;
}

export function serializeEvent(row: EventWithOutcomes) {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    error: row.error,
    source: row.source,
    recipient: row.recipient_external_id,
    agent: row.agent_key,
    data: row.data as Record<string, unknown>,
    idempotency_key: row.idempotency_key,
    created_at: row.created_at.toISOString(),
    processed_at: row.processed_at?.toISOString() ?? null,
    // Evaluation order (priority desc, key asc), as stored by ingest.
    outcome: [...row.outcomes].sort((a, b) => a.position - b.position).map(serializeOutcome),
  };
}

export type EventView = ReturnType<typeof serializeEvent>;

/** The view of an event just committed, built from the row written (no read back). */
export function pendingEventView(row: NewEvent): EventView {
  return {
    id: row.id,
    name: row.name,
    status: "pending",
    error: null,
    source: "api",
    recipient: row.recipient_external_id,
    agent: row.agent_key,
    data: row.data as Record<string, unknown>,
    idempotency_key: row.idempotency_key,
    created_at: row.created_at.toISOString(),
    processed_at: null,
    outcome: [],
  };
}
