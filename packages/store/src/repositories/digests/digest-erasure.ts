import { rowsOfPerson, type ErasedPerson } from "../erased-person";
import { transactionOf, type Transaction } from "../../transaction";

export async function findDigestIdsOfPerson(tx: Transaction, person: ErasedPerson): Promise<string[]> {
  const digests = await transactionOf(tx).digest.findMany({
    where: rowsOfPerson(person),
    select: { id: true },
  });
  return digests.map((d) => d.id);
}

/** Deletes the digests; their items go with them (cascade). */
export async function deleteDigests(tx: Transaction, ids: string[]): Promise<void> {
  await transactionOf(tx).digest.deleteMany({ where: { id: { in: ids } } });
}
