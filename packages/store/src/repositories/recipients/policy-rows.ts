import type { AddressRow, ConsentRow, RecipientRow } from "../../rows";
import type { PrismaClientOrTransaction, TransactionClient } from "../../transaction";

// The person as composition sees them: the profile with addresses and recorded consents.

export type RecipientWithPolicyRows = RecipientRow & { addresses: AddressRow[]; consents: ConsentRow[] };

export function findRecipientWithPolicyRows(
  db: PrismaClientOrTransaction,
  where: { id: string } | { external_id: string },
): Promise<RecipientWithPolicyRows | null> {
  return db.recipient.findUnique({ where, include: { addresses: true, consents: true } });
}

/** The internal id of the person with this external id, if any. */
export async function findRecipientId(
  db: PrismaClientOrTransaction,
  externalId: string,
): Promise<string | null> {
  const row = await db.recipient.findUnique({ where: { external_id: externalId }, select: { id: true } });
  return row?.id ?? null;
}

/** A profile with nothing but its ids (no addresses): an event's person not known yet. */
export function createBareRecipient(
  tx: TransactionClient,
  recipient: { id: string; externalId: string; now: Date },
): Promise<RecipientRow> {
  return tx.recipient.create({
    data: {
      id: recipient.id,
      external_id: recipient.externalId,
      created_at: recipient.now,
      updated_at: recipient.now,
    },
  });
}
