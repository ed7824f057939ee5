import { transactionOf, type Transaction } from "../../transaction";

/** Deletes inbound replies sent from these numbers. */
export async function deleteInboundRepliesFrom(tx: Transaction, numbers: string[]): Promise<void> {
  await transactionOf(tx).inboundReply.deleteMany({ where: { from: { in: numbers } } });
}
