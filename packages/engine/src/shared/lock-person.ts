import { lockRecipientsInOrder, type Transaction } from "@svc/store";

/**
 * Holds the person's recipient lock for the rest of the transaction. Ingest locks by external id
 * and direct sends by internal id, so both are taken (always in this order; nobody else takes two).
 */
export async function lockPerson(
  tx: Transaction,
  person: { id: string; external_id: string },
): Promise<void> {
  await lockRecipientsInOrder(
    tx,
    person.id === person.external_id ? [person.external_id] : [person.external_id, person.id],
  );
}
