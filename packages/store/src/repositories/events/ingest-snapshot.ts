import { advisoryLockKeySql, LockNamespace } from "../../locks";
import type { AgentRow, EventRow, FatigueStateRow } from "../../rows";
import { revive, reviveFatigue, reviveRecipient } from "../json-rows";
import { CONFIG_VERSION_SQL } from "../config-resources/composition-config";
import type { RecipientWithPolicyRows } from "../recipients/policy-rows";
import { prismaOf, transactionOf, type Database, type Transaction } from "../../transaction";

// Ingest's reads as two statements instead of a dozen (docs/architecture.md "Hot paths"): a peek
// before the transaction (what to lock), and, under the locks, everything one event needs: the
// event, its person with addresses, consents and fatigue states, the reporting agent, whether the
// event already has messages, and the configuration's fingerprint. Rows come back as JSON; dates
// are revived to match Prisma's row types.

export interface EventPeek {
  status: EventRow["status"];
  recipientExternalId: string;
  /** The person's internal id if the external id is known yet. */
  recipientId: string | null;
  /** Whether the event carries an inline profile. */
  hasProfile: boolean;
}

type PeekRow = {
  id: string;
  status: EventRow["status"];
  recipient_external_id: string;
  recipient_id: string | null;
  has_profile: boolean;
};

const peekOf = (row: PeekRow): EventPeek => ({
  status: row.status,
  recipientExternalId: row.recipient_external_id,
  recipientId: row.recipient_id,
  hasProfile: row.has_profile,
});

export async function peekEvents(db: Database, eventIds: string[]): Promise<Map<string, EventPeek>> {
  const rows = await prismaOf(db).$queryRawUnsafe<PeekRow[]>(
    `SELECT e.id, e.status::text AS status, e.recipient_external_id, r.id AS recipient_id,
            e.recipient_profile IS NOT NULL AS has_profile
       FROM events e LEFT JOIN recipients r ON r.external_id = e.recipient_external_id
      WHERE e.id = ANY($1::text[])`,
    eventIds,
  );
  return new Map(rows.map((row) => [row.id, peekOf(row)]));
}

const EXTERNAL_KEY = advisoryLockKeySql(LockNamespace.recipient, "recipient_external_id");
const INTERNAL_KEY = advisoryLockKeySql(LockNamespace.recipient, "recipient_id");

/**
 * Peeks at the events and, in the same statement, takes the locks of their people (pending
 * events only): every external-id lock, then every internal-id lock, each group in key order, so
 * two batches (or a batch and a single ingest, which takes one person's external then internal
 * lock) never wait on each other in a circle. The aggregate consumes the sorted keys in order.
 * What the events hold is read again after this statement, under the locks.
 */
export async function lockAndPeekEvents(
  tx: Transaction,
  eventIds: string[],
): Promise<Map<string, EventPeek>> {
  const rows = await transactionOf(tx).$queryRawUnsafe<(PeekRow & { locks: bigint | number })[]>(
    `WITH peek AS (
       SELECT e.id, e.status::text AS status, e.recipient_external_id, r.id AS recipient_id,
              e.recipient_profile IS NOT NULL AS has_profile
         FROM events e LEFT JOIN recipients r ON r.external_id = e.recipient_external_id
        WHERE e.id = ANY($1::text[])),
     keys AS (
       SELECT DISTINCT 0 AS phase, ${EXTERNAL_KEY} AS k FROM peek WHERE status = 'pending'
       UNION
       SELECT DISTINCT 1 AS phase, ${INTERNAL_KEY} AS k FROM peek WHERE status = 'pending' AND recipient_id IS NOT NULL),
     locked AS (SELECT count(pg_advisory_xact_lock(k)) AS n FROM (SELECT k FROM keys ORDER BY phase, k) sorted)
     SELECT peek.*, locked.n AS locks FROM peek, locked`,
    eventIds,
  );
  return new Map(rows.map((row) => [row.id, peekOf(row)]));
}

export interface IngestSnapshot {
  event: EventRow;
  recipient: RecipientWithPolicyRows | null;
  fatigue: FatigueStateRow[];
  /** The reporting agent's row (null when the event has no agent or the row is gone). */
  agent: AgentRow | null;
  /** True when some message already names this event (a retry finds it by its dedup key). */
  hasMessages: boolean;
  /** Fingerprint of rules, templates and categories as this transaction sees them. */
  configVersion: string;
}

interface SnapshotRow {
  event: Record<string, unknown>;
  recipient: Record<string, unknown> | null;
  addresses: Record<string, unknown>[];
  consents: Record<string, unknown>[];
  fatigue: Record<string, unknown>[];
  agent: Record<string, unknown> | null;
  has_messages: boolean;
  config_version: string;
}

/** Snapshots of several events in one statement (the configuration fingerprint is computed once). */
export async function loadIngestSnapshots(
  tx: Transaction,
  eventIds: string[],
): Promise<Map<string, IngestSnapshot>> {
  const rows = await transactionOf(tx).$queryRawUnsafe<SnapshotRow[]>(
    `SELECT row_to_json(e.*) AS event,
            row_to_json(r.*) AS recipient,
            (SELECT coalesce(json_agg(a.*), '[]') FROM addresses a WHERE a.recipient_id = r.id) AS addresses,
            (SELECT coalesce(json_agg(c.*), '[]') FROM consents c WHERE c.recipient_id = r.id) AS consents,
            (SELECT coalesce(json_agg(f.*), '[]') FROM fatigue_states f WHERE f.recipient_id = r.id) AS fatigue,
            (SELECT row_to_json(g.*) FROM agents g WHERE g.key = e.agent_key) AS agent,
            EXISTS (SELECT 1 FROM messages m WHERE m.event_id = e.id) AS has_messages,
            ${CONFIG_VERSION_SQL} AS config_version
       FROM events e LEFT JOIN recipients r ON r.external_id = e.recipient_external_id
      WHERE e.id = ANY($1::text[])`,
    eventIds,
  );
  return new Map(rows.map((row) => [row.event.id as string, snapshotOf(row)]));
}

function snapshotOf(row: SnapshotRow): IngestSnapshot {
  const recipient = row.recipient ? reviveRecipient(row.recipient, row.addresses, row.consents) : null;
  return {
    event: revive<EventRow>(row.event, ["created_at", "processed_at", "idempotency_expires_at"]),
    recipient,
    fatigue: row.fatigue.map(reviveFatigue),
    agent: row.agent ? revive<AgentRow>(row.agent, ["deleted_at", "created_at", "updated_at"]) : null,
    hasMessages: row.has_messages,
    configVersion: row.config_version,
  };
}
