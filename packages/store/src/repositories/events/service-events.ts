import type { Prisma } from "../../generated/prisma/client";
import { transactionOf, type Transaction } from "../../transaction";

// Events svc reports itself (source `svc`, e.g. `svc.approval_requested`), written in the
// transaction of what they report, so a crash cannot lose one.

export interface NewServiceEvent {
  id: string;
  name: string;
  recipientExternalId: string;
  data: Record<string, unknown>;
  /** Unique per (svc, key): the same report is written once. */
  idempotencyKey: string;
}

export async function insertServiceEvents(
  tx: Transaction,
  events: readonly NewServiceEvent[],
  now: Date,
): Promise<void> {
  if (events.length === 0) return;
  await transactionOf(tx).event.createMany({
    data: events.map((event) => ({
      id: event.id,
      name: event.name,
      source: "svc" as const,
      sender: "svc",
      recipient_external_id: event.recipientExternalId,
      data: event.data as Prisma.InputJsonValue,
      idempotency_key: event.idempotencyKey,
      created_at: now,
    })),
  });
}
