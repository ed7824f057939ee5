import type { TransactionClient } from "../../transaction";

/** Deletes the person; addresses, preference token, ledger, consents and fatigue go with them (cascade). */
export async function deleteRecipient(tx: TransactionClient, id: string): Promise<void> {
  await tx.recipient.delete({ where: { id } });
}
