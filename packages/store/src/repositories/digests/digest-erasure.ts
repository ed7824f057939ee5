import type { TransactionClient } from "../../transaction";
import { rowsOfPerson, type ErasedPerson } from "../erased-person";

export async function findDigestIdsOfPerson(tx: TransactionClient, person: ErasedPerson): Promise<string[]> {
  const digests = await tx.digest.findMany({ where: rowsOfPerson(person), select: { id: true } });
  return digests.map((d) => d.id);
}

/** Deletes the digests; their items go with them (cascade). */
export async function deleteDigests(tx: TransactionClient, ids: string[]): Promise<void> {
  await tx.digest.deleteMany({ where: { id: { in: ids } } });
}
