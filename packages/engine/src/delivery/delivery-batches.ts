import {
  claimDueMessages,
  loadRecheckFacts,
  writeSentMessages,
  type ClaimedDue,
  type ClaimRequest,
  type MessageRow,
  type SentResult,
  type SentWrite,
} from "@svc/store";
import type { DeliveryDeps } from "../shared/delivery-types";
import { microBatcher, type MicroBatcher } from "../shared/micro-batch";
import { recheckFromFacts, type Recheck } from "./recheck-before-sending";

// The round trips of the common path, shared by the jobs one worker runs at once: 50 concurrent
// jobs make a handful of queries between them instead of a dozen each.

export interface DeliveryBatches {
  /** Due `queued` rows claimed with their re-check facts (one statement per batch). */
  claimDue: MicroBatcher<ClaimRequest, ClaimedDue | null>;
  /** The re-check facts of a row claimed otherwise (a retry, an expired lease). */
  recheck: MicroBatcher<{ message: MessageRow; now: Date }, Recheck>;
  writeSent: MicroBatcher<SentWrite, SentResult>;
}

const byDeps = new WeakMap<DeliveryDeps, DeliveryBatches>();

/** One set of batchers per deps object (the job handler builds its deps once per process). */
export function deliveryBatches(deps: DeliveryDeps): DeliveryBatches {
  let batches = byDeps.get(deps);
  if (!batches) {
    batches = {
      claimDue: microBatcher((requests) => {
        const now = deps.now();
        const leaseUntil = new Date(now.getTime() + deps.config.worker.lease_seconds * 1000);
        return claimDueMessages(deps.prisma, requests, now, leaseUntil);
      }),
      recheck: microBatcher(async (items) => {
        const facts = await loadRecheckFacts(
          deps.prisma,
          items.map((i) => i.message),
        );
        return items.map((item, i) => recheckFromFacts(item.message, facts[i]!, item.now));
      }),
      writeSent: microBatcher((writes) => writeSentMessages(deps.prisma, writes)),
    };
    byDeps.set(deps, batches);
  }
  return batches;
}
