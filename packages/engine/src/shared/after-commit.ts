import type { BulkItem, Queues } from "@svc/queue";
import type { DeliveryDeps } from "../delivery/delivery-types";

// Jobs a decision leaves behind, enqueued after its commit. A lost enqueue is not lost work: the
// rows are committed, and the sweeps (delivery, callbacks, pending events) pick them up.

export interface AfterCommit {
  jobs: BulkItem[];
}

export async function enqueueAfterCommit(
  deps: { queues: Pick<Queues, "enqueueBulk">; logger: Pick<DeliveryDeps["logger"], "warn"> },
  work: AfterCommit,
): Promise<void> {
  if (work.jobs.length === 0) return;
  try {
    await deps.queues.enqueueBulk(work.jobs);
  } catch (error) {
    deps.logger.warn("jobs of a decision not enqueued; the sweeps will pick them up", {
      jobs: work.jobs.map((job) => job.name),
      error: (error as Error).message,
    });
  }
}
