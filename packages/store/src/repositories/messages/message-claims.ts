import { Prisma } from "../../generated/prisma/client";
import type { MessageRow } from "../../rows";
import {
  recheckFactsOf,
  recheckFactsSql,
  type RecheckFacts,
  type RecheckFactsColumns,
} from "./message-delivery";
import { prismaOf, type Database } from "../../transaction";

// The claim of a message for delivery (docs/delivery.md "Claims and leases"): compare-and-set to
// `sending` with a lease, only for the job's own generation. Each returns the rows it changed, so
// the use case decides what losing the race means.

/** `queued` and due → `sending`, a new delivery run (attempt counter 0). */
export async function claimQueuedMessage(
  db: Database,
  claim: { id: string; generation: number; now: Date; leaseUntil: Date },
): Promise<MessageRow | null> {
  const rows = await prismaOf(db).message.updateManyAndReturn({
    where: { id: claim.id, generation: claim.generation, status: "queued", send_at: { lte: claim.now } },
    data: { status: "sending", lease_until: claim.leaseUntil, delivery_attempts: 0, updated_at: claim.now },
  });
  return rows[0] ?? null;
}

/** A `sending` row whose lease ran out gets a new lease (the run goes on). */
export async function takeOverLapsedLease(
  db: Database,
  claim: { id: string; generation: number; now: Date; leaseUntil: Date },
): Promise<MessageRow | null> {
  const rows = await prismaOf(db).message.updateManyAndReturn({
    where: {
      id: claim.id,
      generation: claim.generation,
      status: "sending",
      OR: [{ lease_until: null }, { lease_until: { lte: claim.now } }],
    },
    data: { lease_until: claim.leaseUntil, updated_at: claim.now },
  });
  return rows[0] ?? null;
}

/**
 * Moves a row of this generation and status to the next generation (optionally parking its lease,
 * optionally moving `send_at`), so a job under the new id can be enqueued. Null when the row moved
 * on meanwhile.
 */
export async function bumpMessageGeneration(
  db: Database,
  where: { id: string; generation: number; status: "queued" | "sending" },
  change: { leaseUntil?: Date | null; sendAt?: Date; now: Date },
): Promise<MessageRow | null> {
  const data: Prisma.MessageUpdateManyMutationInput = {
    updated_at: change.now,
    generation: { increment: 1 },
  };
  if (change.leaseUntil !== undefined) data.lease_until = change.leaseUntil;
  if (change.sendAt !== undefined) data.send_at = change.sendAt;
  const rows = await prismaOf(db).message.updateManyAndReturn({ where, data });
  return rows[0] ?? null;
}

export interface ClaimRequest {
  messageId: string;
  generation: number;
}

/** A due row claimed by claimDueMessages, with its re-check facts as of the claim. */
export interface ClaimedDue {
  message: MessageRow;
  facts: RecheckFacts;
}

/**
 * The claim of many due `queued` rows in one statement, exactly like `claimQueuedMessage` per row,
 * reading each claimed row's re-check facts in the same statement (the delivery re-checks right
 * after claiming, docs/delivery.md "Re-checks": one round trip instead of two). Returns the claimed
 * row per request, or null (not due, another generation, another status).
 */
export async function claimDueMessages(
  db: Database,
  requests: readonly ClaimRequest[],
  now: Date,
  leaseUntil: Date,
): Promise<(ClaimedDue | null)[]> {
  if (requests.length === 0) return [];
  const rows = await prismaOf(db).$queryRaw<(MessageRow & RecheckFactsColumns)[]>(Prisma.sql`
    WITH q AS (
      UPDATE messages m SET status = 'sending', lease_until = ${leaseUntil}, delivery_attempts = 0, updated_at = ${now}
      FROM unnest(${requests.map((r) => r.messageId)}::text[], ${requests.map((r) => r.generation)}::int[]) AS j(id, generation)
      WHERE m.id = j.id AND m.generation = j.generation AND m.status = 'queued' AND m.send_at <= ${now}
      RETURNING m.*)
    SELECT q.*, ${recheckFactsSql.columns}
    FROM q ${recheckFactsSql.joins}`);
  const claimed = new Map(rows.map((row) => [`${row.id}-${row.generation}`, splitClaimedRow(row)]));
  // A job id twice in one batch gets the row once: one sender per claim.
  return requests.map((r) => {
    const key = `${r.messageId}-${r.generation}`;
    const row = claimed.get(key) ?? null;
    claimed.delete(key);
    return row;
  });
}

function splitClaimedRow(row: MessageRow & RecheckFactsColumns): ClaimedDue {
  const message: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) if (!column.startsWith("rc_")) message[column] = value;
  return { message: message as unknown as MessageRow, facts: recheckFactsOf(row, row) };
}

/**
 * The heartbeat of running sends: pushes the lease of each still-claimed row (this generation,
 * `sending`, with a lease) out to `leaseUntil`, never shortening it. A row that moved on (sent,
 * parked for a retry under the next generation, handed to screening) is left alone. Returns how
 * many leases were renewed.
 */
export async function renewDeliveryLeases(
  db: Database,
  claims: readonly ClaimRequest[],
  leaseUntil: Date,
): Promise<number> {
  if (claims.length === 0) return 0;
  return prismaOf(db).$executeRaw(Prisma.sql`
    UPDATE messages m SET lease_until = ${leaseUntil}
    FROM unnest(${claims.map((c) => c.messageId)}::text[], ${claims.map((c) => c.generation)}::int[]) AS j(id, generation)
    WHERE m.id = j.id AND m.generation = j.generation AND m.status = 'sending'
      AND m.lease_until IS NOT NULL AND m.lease_until < ${leaseUntil}`);
}
