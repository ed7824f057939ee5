import { BROADCAST_CANCELLED } from "@svc/core";
import { cancelQueuedBroadcastMessages, type RootDatabase } from "@svc/store";
import { messageStatusPerRow } from "../outbox/emit";

/**
 * A cancelled broadcast's `queued` messages → `cancelled`, each with its `message.cancelled`
 * webhook event, in one statement (docs/broadcasts.md "Cancelling"); how many changed.
 */
export function cancelBroadcastMessages(
  deps: { prisma: RootDatabase },
  broadcastId: string,
  now: Date,
): Promise<number> {
  return cancelQueuedBroadcastMessages(
    deps.prisma,
    broadcastId,
    BROADCAST_CANCELLED,
    now,
    messageStatusPerRow("cancelled", BROADCAST_CANCELLED, now),
  );
}
