import type { MessageRow } from "@svc/store";
import { claimDueBatch, writeSentBatch, type ClaimRequest, type SentWrite } from "./delivery-batch-writes";
import type { DeliveryDeps } from "./delivery-types";
import { microBatcher, type MicroBatcher } from "./micro-batch";
import { loadRecheckFacts, recheckFromFacts, type Recheck } from "./recheck-before-sending";

// The round trips of the common path, shared by the jobs one worker runs at once: 50 concurrent
// jobs make a handful of queries between them instead of a dozen each.

export interface DeliveryBatches {
  claimDue: MicroBatcher<ClaimRequest, MessageRow | null>;
  recheck: MicroBatcher<{ message: MessageRow; now: Date }, Recheck>;
  writeSent: MicroBatcher<SentWrite, boolean>;
}

const byDeps = new WeakMap<DeliveryDeps, DeliveryBatches>();

/** One set of batchers per deps object (the job handler builds its deps once per process). */
export function deliveryBatches(deps: DeliveryDeps): DeliveryBatches {
  let batches = byDeps.get(deps);
  if (!batches) {
    batches = {
      claimDue: microBatcher((requests) =>
        claimDueBatch(deps.prisma, requests, deps.now(), deps.config.worker.lease_seconds),
      ),
      recheck: microBatcher(async (items) => {
        const facts = await loadRecheckFacts(
          deps.prisma,
          items.map((i) => i.message),
        );
        return items.map((item, i) => recheckFromFacts(item.message, facts[i]!, item.now));
      }),
      writeSent: microBatcher((writes) => writeSentBatch(deps.prisma, writes)),
    };
    byDeps.set(deps, batches);
  }
  return batches;
}
