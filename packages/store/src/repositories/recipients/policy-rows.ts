import type { AddressRow, ConsentRow, FatigueStateRow, RecipientRow } from "../../rows";
import { reviveFatigue, reviveRecipient } from "../json-rows";
import { prismaOf, sqlOf, transactionOf, type Database, type Transaction } from "../../transaction";

// The person as composition sees them: the profile with addresses and recorded consents.

export type RecipientWithPolicyRows = RecipientRow & { addresses: AddressRow[]; consents: ConsentRow[] };

export function findRecipientWithPolicyRows(
  db: Database,
  where: { id: string } | { external_id: string },
): Promise<RecipientWithPolicyRows | null> {
  return prismaOf(db).recipient.findUnique({ where, include: { addresses: true, consents: true } });
}

/** The internal id of the person with this external id, if any. */
export async function findRecipientId(db: Database, externalId: string): Promise<string | null> {
  const row = await prismaOf(db).recipient.findUnique({
    where: { external_id: externalId },
    select: { id: true },
  });
  return row?.id ?? null;
}

/**
 * The people with these internal ids, with addresses, consents and their fatigue rows in these
 * categories, in one statement (a batch of direct sends, under the people's locks).
 */
export async function loadRecipientsForCompose(
  tx: Transaction,
  ids: readonly string[],
  categories: readonly string[],
): Promise<{ recipients: RecipientWithPolicyRows[]; fatigue: FatigueStateRow[] }> {
  if (ids.length === 0) return { recipients: [], fatigue: [] };
  const rows = await sqlOf(tx).query<{
    recipient: Record<string, unknown>;
    addresses: Record<string, unknown>[];
    consents: Record<string, unknown>[];
    fatigue: Record<string, unknown>[];
  }>(
    `SELECT row_to_json(r.*) AS recipient,
            (SELECT coalesce(json_agg(a.*), '[]') FROM addresses a WHERE a.recipient_id = r.id) AS addresses,
            (SELECT coalesce(json_agg(c.*), '[]') FROM consents c WHERE c.recipient_id = r.id) AS consents,
            (SELECT coalesce(json_agg(f.*), '[]') FROM fatigue_states f
              WHERE f.recipient_id = r.id AND f.category = ANY($2::text[])) AS fatigue
       FROM recipients r
      WHERE r.id = ANY($1::text[])`,
    [[...ids], [...categories]],
  );
  return {
    recipients: rows.map((row) => reviveRecipient(row.recipient, row.addresses, row.consents)),
    fatigue: rows.flatMap((row) => row.fatigue.map(reviveFatigue)),
  };
}

/** A profile with nothing but its ids (no addresses): an event's person not known yet. */
export function createBareRecipient(
  tx: Transaction,
  recipient: { id: string; externalId: string; now: Date },
): Promise<RecipientRow> {
  return transactionOf(tx).recipient.create({
    data: {
      id: recipient.id,
      external_id: recipient.externalId,
      created_at: recipient.now,
      updated_at: recipient.now,
    },
  });
}

/** The people with these external ids, with addresses and consents (batch accept's inline-profile check). */
export function findRecipientsWithPolicyRows(
  db: Database,
  externalIds: readonly string[],
): Promise<RecipientWithPolicyRows[]> {
  if (externalIds.length === 0) return Promise.resolve([]);
  return prismaOf(db).recipient.findMany({
    where: { external_id: { in: [...externalIds] } },
    include: { addresses: true, consents: true },
  });
}
