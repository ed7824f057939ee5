import type { SvcConfig } from "@svc/config";
import type { BulkItem, Queues } from "@svc/queue";
import { handOffForScreening, type ClaimRequest, type MessageRow, type RootDatabase } from "@svc/store";
import { enqueueAfterCommit } from "../shared/after-commit";
import type { DeliveryLogger } from "../shared/delivery-types";
import { microBatcher } from "../shared/micro-batch";
import { noScreening, type ScreeningGate } from "../shared/screening-gate";

// The delivery side of screening (docs/screening.md "How it runs"): an agent message without a
// verdict is handed to the `screening` queue and its delivery stops there; the screening job puts
// it back for delivery (or holds it). Everything else goes straight on: backend messages, messages
// a person approved, and messages whose stored verdict said send (every retry reuses it).

/** Most messages in one `screen-messages` job (screened side by side). */
export const SCREENING_BATCH = 20;

export interface ScreeningHandOffDeps {
  prisma: RootDatabase;
  config: Pick<SvcConfig, "screening">;
  queues: Pick<Queues, "enqueueBulk">;
  logger: DeliveryLogger;
  now: () => Date;
}

/** Whether delivery must wait for a screening verdict first. */
export function needsScreening(
  message: Pick<MessageRow, "agent_key" | "reviewed_at" | "screening">,
): boolean {
  return message.agent_key !== null && message.reviewed_at === null && message.screening === null;
}

/** The gate delivery calls; pass-through when screening is off. */
export function screeningGate(deps: ScreeningHandOffDeps): ScreeningGate {
  if (!deps.config.screening.enabled) return noScreening;
  // The messages a worker's concurrent deliveries hand over together share one statement and one job.
  const handOff = microBatcher(async (requests: ClaimRequest[]) => {
    const handed = await handOffForScreening(deps.prisma, requests, deps.now());
    // Committed as waiting: if the job never reaches Redis, the requeue-screening sweep adds it.
    await enqueueAfterCommit(deps, { jobs: screeningJobsFor(handed) });
    return requests.map(() => undefined);
  });
  return async (message) => {
    if (!needsScreening(message)) return { action: "send" };
    await handOff.add({ messageId: message.id, generation: message.generation });
    return { action: "stop" };
  };
}

/** One `screen-message` job for a lone message, `screen-messages` jobs of up to SCREENING_BATCH otherwise. */
export function screeningJobsFor(
  messages: readonly ClaimRequest[],
): (BulkItem<"screen-message"> | BulkItem<"screen-messages">)[] {
  const jobs: (BulkItem<"screen-message"> | BulkItem<"screen-messages">)[] = [];
  for (let i = 0; i < messages.length; i += SCREENING_BATCH) {
    const chunk = messages.slice(i, i + SCREENING_BATCH);
    jobs.push(
      chunk.length === 1
        ? { name: "screen-message", payload: { ...chunk[0]! } }
        : { name: "screen-messages", payload: { messages: chunk.map((m) => ({ ...m })) } },
    );
  }
  return jobs;
}
