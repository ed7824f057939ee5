import type { TransactionClient } from "../../transaction";

/** Deletes inbound replies sent from these numbers. */
export async function deleteInboundRepliesFrom(tx: TransactionClient, numbers: string[]): Promise<void> {
  await tx.inboundReply.deleteMany({ where: { from: { in: numbers } } });
}
