import type {
  AddressRow,
  ConsentRow,
  EventRow,
  FatigueStateRow,
  PrismaClient,
  RecipientRow,
  TransactionClient,
} from "@svc/store";
import type { RecipientWithPolicyRows } from "../compose/load-policy-context";
import { CONFIG_VERSION_SQL } from "./ingest-config-cache";

// Ingest's reads as two statements instead of a dozen: a peek before the transaction (what to
// lock), and, under the locks, everything one event needs: the event, its person with addresses,
// consents and fatigue states, whether the event already has messages, and the configuration's
// fingerprint. Rows come back as JSON; dates are revived to match Prisma's row types.

export interface EventPeek {
  status: EventRow["status"];
  recipientExternalId: string;
  /** The person's internal id if the external id is known yet. */
  recipientId: string | null;
}

export async function peekEvent(prisma: PrismaClient, eventId: string): Promise<EventPeek | null> {
  return (await peekEvents(prisma, [eventId])).get(eventId) ?? null;
}

export async function peekEvents(prisma: PrismaClient, eventIds: string[]): Promise<Map<string, EventPeek>> {
  const rows = await prisma.$queryRawUnsafe<
    { id: string; status: EventRow["status"]; recipient_external_id: string; recipient_id: string | null }[]
  >(
    `SELECT e.id, e.status::text AS status, e.recipient_external_id, r.id AS recipient_id
       FROM events e LEFT JOIN recipients r ON r.external_id = e.recipient_external_id
      WHERE e.id = ANY($1::text[])`,
    eventIds,
  );
  return new Map(
    rows.map((row) => [
      row.id,
      { status: row.status, recipientExternalId: row.recipient_external_id, recipientId: row.recipient_id },
    ]),
  );
}

export interface IngestSnapshot {
  event: EventRow;
  recipient: RecipientWithPolicyRows | null;
  fatigue: FatigueStateRow[];
  /** True when some message already names this event (a retry finds it on the general path). */
  hasMessages: boolean;
  configVersion: string;
}

interface SnapshotRow {
  event: Record<string, unknown>;
  recipient: Record<string, unknown> | null;
  addresses: Record<string, unknown>[];
  consents: Record<string, unknown>[];
  fatigue: Record<string, unknown>[];
  has_messages: boolean;
  config_version: string;
}

export async function loadIngestSnapshot(
  tx: TransactionClient,
  eventId: string,
): Promise<IngestSnapshot | null> {
  return (await loadIngestSnapshots(tx, [eventId])).get(eventId) ?? null;
}

/** Snapshots of several events in one statement (the configuration fingerprint is computed once). */
export async function loadIngestSnapshots(
  tx: TransactionClient,
  eventIds: string[],
): Promise<Map<string, IngestSnapshot>> {
  const rows = await tx.$queryRawUnsafe<SnapshotRow[]>(
    `SELECT row_to_json(e.*) AS event,
            row_to_json(r.*) AS recipient,
            (SELECT coalesce(json_agg(a.*), '[]') FROM addresses a WHERE a.recipient_id = r.id) AS addresses,
            (SELECT coalesce(json_agg(c.*), '[]') FROM consents c WHERE c.recipient_id = r.id) AS consents,
            (SELECT coalesce(json_agg(f.*), '[]') FROM fatigue_states f WHERE f.recipient_id = r.id) AS fatigue,
            EXISTS (SELECT 1 FROM messages m WHERE m.event_id = e.id) AS has_messages,
            ${CONFIG_VERSION_SQL} AS config_version
       FROM events e LEFT JOIN recipients r ON r.external_id = e.recipient_external_id
      WHERE e.id = ANY($1::text[])`,
    eventIds,
  );
  return new Map(rows.map((row) => [row.event.id as string, snapshotOf(row)]));
}

function snapshotOf(row: SnapshotRow): IngestSnapshot {
  const recipient = row.recipient
    ? {
        ...revive<RecipientRow>(row.recipient, ["created_at", "updated_at"]),
        addresses: row.addresses.map((a) => revive<AddressRow>(a, ["created_at", "updated_at"])),
        consents: row.consents.map((c) => revive<ConsentRow>(c, ["expires_at", "recorded_at"])),
      }
    : null;
  return {
    event: revive<EventRow>(row.event, ["created_at", "processed_at", "idempotency_expires_at"]),
    recipient,
    fatigue: row.fatigue.map((f) =>
      revive<FatigueStateRow>(f, ["paused_until", "probe_sent_at", "updated_at"]),
    ),
    hasMessages: row.has_messages,
    configVersion: row.config_version,
  };
}

/** JSON row → row type: timestamp columns become Dates (null stays null). */
function revive<T>(json: Record<string, unknown>, dates: readonly string[]): T {
  const row: Record<string, unknown> = { ...json };
  for (const key of dates) {
    const value = row[key];
    row[key] = typeof value === "string" ? new Date(value) : null;
  }
  return row as T;
}
