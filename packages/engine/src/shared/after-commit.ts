import type { BulkItem } from "@svc/queue";
import type { DeliveryDeps } from "./delivery-types";
import { handOffJobs, type HandOffDeps } from "./hand-off";

// Jobs a decision leaves behind, enqueued after its commit. A lost enqueue is not lost work: the
// rows are committed, and the sweeps (delivery, callbacks, pending events) pick them up.

export interface AfterCommit {
  jobs: BulkItem[];
}

export async function enqueueAfterCommit(
  deps: HandOffDeps & { logger: Pick<DeliveryDeps["logger"], "warn"> },
  work: AfterCommit,
): Promise<void> {
  if (work.jobs.length === 0) return;
  try {
    await handOffJobs(deps, work.jobs);
  } catch (error) {
    deps.logger.warn("jobs of a decision not enqueued; the sweeps will pick them up", {
      jobs: work.jobs.map((job) => job.name),
      error: (error as Error).message,
    });
  }
}
