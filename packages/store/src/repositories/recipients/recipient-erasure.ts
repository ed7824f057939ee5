import { transactionOf, type Transaction } from "../../transaction";

/** Deletes the person; addresses, preference token, ledger, consents and fatigue go with them (cascade). */
export async function deleteRecipient(tx: Transaction, id: string): Promise<void> {
  await transactionOf(tx).recipient.delete({ where: { id } });
}
