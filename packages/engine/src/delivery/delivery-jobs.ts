import type { BulkItem, JobPayload } from "@svc/queue";

/** Most messages in one `deliver-messages` job. */
export const DELIVERY_BATCH = 100;

type Delivery = JobPayload<"deliver-message">;

/** Jobs that deliver `messages` now: a lone one keeps its `deliver-message` job, more share one. */
export function deliveryJobsFor(
  messages: readonly Delivery[],
): (BulkItem<"deliver-message"> | BulkItem<"deliver-messages">)[] {
  const jobs: (BulkItem<"deliver-message"> | BulkItem<"deliver-messages">)[] = [];
  for (let i = 0; i < messages.length; i += DELIVERY_BATCH) {
    const chunk = messages.slice(i, i + DELIVERY_BATCH);
    jobs.push(
      chunk.length === 1
        ? { name: "deliver-message", payload: chunk[0]! }
        : { name: "deliver-messages", payload: { messages: [...chunk] } },
    );
  }
  return jobs;
}
