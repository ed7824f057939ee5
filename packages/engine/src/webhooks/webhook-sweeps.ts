import type { Queues, Sweep } from "@svc/queue";
import { findDueWebhookDeliveries, type RootDatabase } from "@svc/store";
import { webhookTryJobId } from "./webhook-retry";

// `requeue-webhooks` (docs/webhooks.md "Delivery that loses nothing"): the row is the truth. A
// pending delivery due a while ago has lost its job (Redis refused the enqueue, a crash between
// the fan-out's commit and its enqueue) or its worker (killed mid-send: the claim's lease ran
// out). Its try's job is added again; the claim makes a duplicate harmless.

const WEBHOOK_SWEEP_EVERY_MS = 15_000;
const WEBHOOK_SWEEP_GRACE_MS = 10_000;

export function requeueWebhooksSweep(
  deps: { prisma: RootDatabase; queues: Pick<Queues, "enqueueBulk"> },
  options: { every?: number; graceMs?: number; limit?: number } = {},
): Sweep {
  const graceMs = options.graceMs ?? WEBHOOK_SWEEP_GRACE_MS;
  return {
    name: "requeue-webhooks",
    every: options.every ?? WEBHOOK_SWEEP_EVERY_MS,
    run: async ({ now }) => {
      const due = await findDueWebhookDeliveries(
        deps.prisma,
        new Date(now.getTime() - graceMs),
        options.limit ?? 1000,
      );
      if (due.length === 0) return { found: 0, jobIds: [] };
      const jobIds = await deps.queues.enqueueBulk(
        due.map((row) => ({
          name: "send-webhook" as const,
          payload: { deliveryId: row.id },
          opts: { jobId: webhookTryJobId(row.id, row.next_attempt_at ?? now, { sweep: true }) },
        })),
      );
      return { found: due.length, jobIds };
    },
  };
}
