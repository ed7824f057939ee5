import { bulkJobId, queueOf, type BulkItem, type Queues } from "@svc/queue";

/** The ids of everything an erased person could still have queued. */
export interface ErasedWork {
  eventIds: string[];
  ruleKeys: string[];
  messages: { id: string; generation: number }[];
  digestIds: string[];
  callbackIds: string[];
}

/** Every job id that may exist for the erased rows, by the catalog's own id rules. */
function erasedJobTargets(work: ErasedWork): BulkItem[] {
  const targets: BulkItem[] = [];
  for (const eventId of work.eventIds) {
    targets.push({ name: "ingest-event", payload: { eventId } });
    for (const ruleKey of work.ruleKeys)
      targets.push({ name: "apply-policy", payload: { eventId, ruleKey } });
  }
  for (const message of work.messages) {
    // Every generation: an older one may still wait if a re-queue raced its removal.
    for (let generation = 0; generation <= message.generation; generation++) {
      targets.push({ name: "deliver-message", payload: { messageId: message.id, generation } });
      targets.push({ name: "screen-message", payload: { messageId: message.id, generation } });
    }
  }
  for (const digestId of work.digestIds) targets.push({ name: "close-digest", payload: { digestId } });
  for (const callbackId of work.callbackIds) targets.push({ name: "send-callback", payload: { callbackId } });
  return targets;
}

/** How long an erasure waits for Redis before leaving the (harmless) jobs where they are. */
const ERASED_JOBS_REDIS_WAIT_MS = 2_000;

/**
 * Removes the jobs after the rows are gone. A job running right now cannot be removed (BullMQ
 * answers 0); it re-reads its row, finds nothing and does nothing. Returns how many were removed.
 */
export async function removeErasedJobs(queues: Queues, work: ErasedWork): Promise<number> {
  // BullMQ's remove waits for a lost connection to come back; an erasure does not (docs/erasure.md):
  // Redis unreachable for this long rejects, and the caller logs it.
  await queues.ready(ERASED_JOBS_REDIS_WAIT_MS);
  const results = await Promise.all(
    erasedJobTargets(work).map((t) => queues.queue(queueOf(t.name)).remove(bulkJobId(t))),
  );
  return results.reduce((sum, removed) => sum + removed, 0);
}
