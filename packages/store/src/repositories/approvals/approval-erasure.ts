import { transactionOf, type Transaction } from "../../transaction";

/** Ids of the callbacks about these messages. */
export async function findCallbackIdsOfMessages(tx: Transaction, messageIds: string[]): Promise<string[]> {
  const callbacks = await transactionOf(tx).callbackDelivery.findMany({
    where: { subject_id: { in: messageIds } },
    select: { id: true },
  });
  return callbacks.map((c) => c.id);
}

export async function deleteCallbackDeliveries(tx: Transaction, ids: string[]): Promise<void> {
  await transactionOf(tx).callbackDelivery.deleteMany({ where: { id: { in: ids } } });
}

/** Review links of these messages, and those sent to the person as a reviewer. */
export async function deleteReviewLinksOf(
  tx: Transaction,
  messageIds: string[],
  reviewer: string,
): Promise<void> {
  await transactionOf(tx).reviewLink.deleteMany({
    where: { OR: [{ message_id: { in: messageIds } }, { reviewer }] },
  });
}
