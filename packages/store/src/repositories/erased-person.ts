// Erasure deletes every row keyed to a person (docs/erasure.md). Events accepted but not yet
// ingested carry only the external id, so rows are found by either id.

export interface ErasedPerson {
  /** Null when no recipient row exists (only accepted events name the person). */
  recipientId: string | null;
  externalId: string;
}

/** Prisma `where` over a table with `recipient_id` and `recipient_external_id`. */
export function rowsOfPerson(person: ErasedPerson) {
  return person.recipientId !== null
    ? { OR: [{ recipient_id: person.recipientId }, { recipient_external_id: person.externalId }] }
    : { recipient_external_id: person.externalId };
}
