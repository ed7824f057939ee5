import { AppError, REASON, type Principal } from "@svc/core";
import { $transaction, cancelQueuedMessage, type RootDatabase } from "@svc/store";
import { emitWebhookEvents, messageEmission } from "../outbox/emit";
import { recordFinalMessage } from "../metrics/record-metrics";
import { loadMessageFor } from "../shared/load-message";
import { serializeMessage, type MessageView } from "../shared/serialize-message";

/**
 * `queued` → `cancelled` (`cancelled via API`) by compare-and-set, so a worker claiming it at the
 * same moment wins or loses cleanly, with its `message.cancelled` webhook event; any other state
 * is 409 `Invalid state`. The delivery job
 * re-reads the row and does nothing.
 */
export async function cancelMessage(
  { prisma, now }: { prisma: RootDatabase; now: () => Date },
  principal: Principal,
  id: string,
): Promise<MessageView> {
  await loadMessageFor(prisma, principal, id);
  const at = now();
  const cancelled = await $transaction(prisma, async (tx) => {
    if (!(await cancelQueuedMessage(tx, id, REASON.cancelledViaApi, at))) return false;
    const status = { id, status: "cancelled", status_reason: REASON.cancelledViaApi };
    await emitWebhookEvents(tx, [messageEmission("message.cancelled", status, at)]);
    return true;
  });
  const row = await loadMessageFor(prisma, principal, id);
  if (!cancelled) {
    throw new AppError("invalid_state", `message is ${row.status}; only queued messages can be cancelled`);
  }
  recordFinalMessage("cancelled", REASON.cancelledViaApi);
  return serializeMessage(row);
}
