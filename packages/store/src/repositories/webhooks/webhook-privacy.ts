import { Prisma } from "../../generated/prisma/client";
import { prismaOf, transactionOf, type Database, type Transaction } from "../../transaction";

// Personal data in webhook deliveries (docs/webhooks.md "Personal data"): a delivery's frozen body
// is about one person when `recipient_id` is set. Erasure deletes those rows, except the
// `recipient.erased` event itself; retention deletes finished rows after `retention.webhooks_days`.

/** The event type erasure keeps: the backend must still hear of the erasure. */
export const ERASURE_WEBHOOK_TYPE = "recipient.erased";

/** Deletes every delivery about the person (pending or finished, every endpoint) but `recipient.erased`. */
export async function deleteWebhookDeliveriesOf(tx: Transaction, recipientId: string): Promise<number> {
  const { count } = await transactionOf(tx).webhookDelivery.deleteMany({
    where: { recipient_id: recipientId, type: { not: ERASURE_WEBHOOK_TYPE } },
  });
  return count;
}

/** Deletes up to `limit` finished (`succeeded`, `failed`) deliveries created before `before`. */
export function deleteFinishedWebhookDeliveriesBefore(
  db: Database,
  before: Date,
  limit: number,
): Promise<number> {
  return prismaOf(db).$executeRaw(Prisma.sql`
    DELETE FROM webhook_deliveries WHERE id IN (
      SELECT id FROM webhook_deliveries
       WHERE created_at < ${before} AND status IN ('succeeded', 'failed')
       ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)`);
}
