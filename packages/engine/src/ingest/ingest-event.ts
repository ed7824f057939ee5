import {
  $transaction,
  loadIngestSnapshots,
  lockRecipient,
  lockRecipientsInOrder,
  peekEvents,
} from "@svc/store";
import { decideSnapshot } from "./decide-event";
import type { IngestDeps, IngestResult } from "./ingest-types";
import { processedResult, writeDecisions } from "./write-decisions";

// Lock waits queue up behind busy recipients; give them room before Prisma gives up.
export const INGEST_TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 30_000 };

/**
 * The `ingest-event` use case for one event (docs/events.md): in one transaction holding the
 * person's locks, read the snapshot, decide (decide-event.ts) and write messages, outcomes and
 * `processed` together. Re-running it for an event that moved on does nothing; jobs to enqueue
 * after the commit are returned. Batches of events go through ingest-batch.ts.
 */
export async function ingestEvent(deps: IngestDeps, eventId: string): Promise<IngestResult> {
  const peek = (await peekEvents(deps.prisma, [eventId])).get(eventId);
  if (!peek) return { status: "skipped", reason: "not_found" };
  if (peek.status !== "pending") return { status: "skipped", reason: peek.status };

  return $transaction(
    deps.prisma,
    async (tx) => {
      // The external id first (the person may not exist yet), then the internal id that direct
      // sends lock by, always in this order, so events and direct sends to one person serialise.
      await lockRecipientsInOrder(
        tx,
        peek.recipientId ? [peek.recipientExternalId, peek.recipientId] : [peek.recipientExternalId],
      );
      // Re-read under the lock: a twin job may have finished this event meanwhile.
      let snapshot = (await loadIngestSnapshots(tx, [eventId])).get(eventId);
      if (!snapshot) return { status: "skipped", reason: "not_found" } as const;
      if (snapshot.event.status !== "pending")
        return { status: "skipped", reason: snapshot.event.status } as const;
      const recipientId = snapshot.recipient?.id ?? null;
      if (recipientId !== null && recipientId !== peek.recipientId) {
        // The person was created (or erased and re-created) since the peek: lock the new id too.
        await lockRecipient(tx, recipientId);
        snapshot = (await loadIngestSnapshots(tx, [eventId])).get(eventId)!;
      }
      const now = deps.now();
      const decision = await decideSnapshot(tx, deps, snapshot, now);
      await writeDecisions(tx, deps, now, [decision]);
      return processedResult(decision);
    },
    INGEST_TRANSACTION_OPTIONS,
  );
}
