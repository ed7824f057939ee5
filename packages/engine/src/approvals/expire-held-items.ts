import { REASON } from "@svc/core";
import type { BulkItem, Sweep } from "@svc/queue";
import {
  $transaction,
  deleteExpiredSessionGrants,
  expireApprovalRequests,
  expireHeldMessages,
} from "@svc/store";
import { callbackJob, recordDecisionCallback } from "../shared/record-callback";
import { recordFinalMessage } from "../metrics/record-metrics";
import { enqueueAfterCommit } from "../shared/after-commit";
import { emitWebhookEvents, heldMessageDecisionEmissions } from "../outbox/emit";
import { kickOutbox } from "../outbox/outbox";
import type { ApprovalDeps } from "./approval-requests";
import { recordRequestOutcome } from "./decide-request";
import { messageDecisionBody } from "./decision-callbacks";
import { expiryOf } from "./decide-held-message";

// Sweep `expire-held-items` (docs/approvals.md "Deadlines"): what nobody decided in time expires:
// held messages become `suppressed` / `expired`, approval requests `expired`, each with its
// callback (and, for a request, its outbox entry) recorded in the same transaction. A request already
// reads as `expired` before this runs. Session grants past their deadline go too (docs/hooks.md).

const BATCH = 200;

export type ExpirySweepDeps = Pick<ApprovalDeps, "prisma" | "config" | "now" | "queues"> & {
  logger: { warn(message: string, meta?: Record<string, unknown>): void };
};

export function expireHeldItemsSweep(deps: ExpirySweepDeps, every = 30_000): Sweep {
  return {
    name: "expire-held-items",
    every,
    run: async ({ now }) => {
      let messages = 0;
      let requests = 0;
      for (;;) {
        const jobs: BulkItem[] = [];
        let expiredNow = 0;
        let told = false;
        const done = await $transaction(deps.prisma, async (tx) => {
          const expiredMessages = await expireHeldMessages(tx, now, REASON.expired, { limit: BATCH });
          await emitWebhookEvents(
            tx,
            expiredMessages.flatMap((message) =>
              heldMessageDecisionEmissions(message, expiryOf(message), now),
            ),
          );
          for (const message of expiredMessages) {
            const id = await recordDecisionCallback(
              tx,
              deps,
              messageDecisionBody(message, expiryOf(message)),
            );
            if (id) jobs.push(callbackJob(id));
          }
          const expiredRequests = await expireApprovalRequests(tx, now, { limit: BATCH });
          for (const request of expiredRequests)
            await recordRequestOutcome(tx, deps, request, "expired", jobs);
          if (expiredRequests.length > 0) told = true;
          const grants = await deleteExpiredSessionGrants(tx, now, BATCH);
          expiredNow = expiredMessages.length;
          messages += expiredMessages.length;
          requests += expiredRequests.length;
          return expiredMessages.length < BATCH && expiredRequests.length < BATCH && grants < BATCH;
        });
        if (told) kickOutbox(deps.queues);
        recordFinalMessage("suppressed", REASON.expired, expiredNow);
        await enqueueAfterCommit(deps, { jobs });
        if (done) return { messages, requests };
      }
    },
  };
}
