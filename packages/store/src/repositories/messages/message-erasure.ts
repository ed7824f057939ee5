import { rowsOfPerson, type ErasedPerson } from "../erased-person";
import { transactionOf, type Transaction } from "../../transaction";

/** The person's messages, with the generation their delivery jobs are keyed by. */
export async function findMessagesOfPerson(
  tx: Transaction,
  person: ErasedPerson,
): Promise<{ id: string; generation: number }[]> {
  return transactionOf(tx).message.findMany({
    where: rowsOfPerson(person),
    select: { id: true, generation: true },
  });
}

/** Deletes the messages; their attempts and engagements go with them (cascade). */
export async function deleteMessages(tx: Transaction, ids: string[]): Promise<void> {
  await transactionOf(tx).message.deleteMany({ where: { id: { in: ids } } });
}
