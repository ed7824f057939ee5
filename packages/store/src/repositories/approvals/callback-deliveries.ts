import type { Prisma } from "../../generated/prisma/client";
import { transactionOf, type Transaction } from "../../transaction";

// The signed `approval.decided` POSTs to approvals.callback_url (docs/approvals.md "Decision
// callbacks"): one row per decided item, delivered and retried by the `send-callback` job.

export type CallbackDeliveryRow = Prisma.CallbackDeliveryModel;

export interface NewCallbackDelivery {
  id: string;
  /** `approval.decided` */
  kind: string;
  /** The decided approval request or held message. */
  subjectId: string;
  body: Record<string, unknown>;
  now: Date;
}

/**
 * Records the callback of a decision, in the decision's transaction. One per (kind, subject):
 * returns false when the subject already has one (an item is decided once).
 */
export async function insertCallbackDelivery(
  tx: Transaction,
  callback: NewCallbackDelivery,
): Promise<boolean> {
  const { count } = await transactionOf(tx).callbackDelivery.createMany({
    data: [
      {
        id: callback.id,
        kind: callback.kind,
        subject_id: callback.subjectId,
        body: callback.body as Prisma.InputJsonValue,
        status: "pending",
        next_attempt_at: callback.now,
        created_at: callback.now,
      },
    ],
    skipDuplicates: true,
  });
  return count === 1;
}
