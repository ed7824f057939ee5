import type { TransactionClient } from "../../transaction";
import { rowsOfPerson, type ErasedPerson } from "../erased-person";

/** The person's messages, with the generation their delivery jobs are keyed by. */
export async function findMessagesOfPerson(
  tx: TransactionClient,
  person: ErasedPerson,
): Promise<{ id: string; generation: number }[]> {
  return tx.message.findMany({ where: rowsOfPerson(person), select: { id: true, generation: true } });
}

/** Deletes the messages; their attempts and engagements go with them (cascade). */
export async function deleteMessages(tx: TransactionClient, ids: string[]): Promise<void> {
  await tx.message.deleteMany({ where: { id: { in: ids } } });
}
