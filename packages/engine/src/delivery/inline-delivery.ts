import type { DeliverHere } from "../shared/hand-off";
import {
  jobIdFor,
  type BulkItem,
  type JobHandler,
  type JobLogger,
  type JobPayload,
  type Queues,
} from "@svc/queue";
import { deliveryJobsFor } from "./delivery-jobs";

// Skips the queue hop for messages due now (`deliver-message`, and each of a `deliver-messages`
// batch) (docs/delivery.md "Inline delivery"): a process that runs both ingest and delivery is
// given this as the `deliverHere` of the jobs that compose (ingest, screening releases, broadcast
// chunks), whose hand-off (shared/hand-off.ts) passes their due deliveries straight to the
// delivery handler instead of a round trip through Redis. The guarantees stay those of a lost job:
// the row is committed `queued` before anything here runs, so a crash leaves it to `requeue-due`
// (queued) or `reclaim-leases` (sending); an error falls back to enqueueing the job.

export interface InlineDeliveryOptions {
  /** The `deliver-message` handler this process runs (sharing its batches). */
  deliver: JobHandler<"deliver-message">;
  /** Where a delivery that failed here goes to be retried. */
  queues: Pick<Queues, "enqueue">;
  logger: Pick<JobLogger, "warn">;
  now: () => Date;
  /** Most inline deliveries at once; beyond it items are enqueued as usual (backpressure). */
  limit: number;
}

export interface InlineDelivery extends DeliverHere {
  /** Deliveries started here and not ended yet. */
  readonly inFlight: number;
  /**
   * Resolves once at most half the limit is in flight: a broadcast chunk waits for it before
   * composing its next batch, so composing keeps pace with delivering here instead of spilling
   * most of a large audience into delivery jobs (docs/broadcasts.md "How it runs").
   */
  room(): Promise<void>;
  /** Resolves once every delivery started here has ended (graceful shutdown). */
  drain(): Promise<void>;
}

export function inlineDelivery(options: InlineDeliveryOptions): InlineDelivery {
  const running = new Set<Promise<void>>();
  const roomy = () => running.size <= options.limit / 2;
  let waitingForRoom: (() => void)[] = [];
  const wakeIfRoomy = () => {
    if (!roomy()) return;
    const ready = waitingForRoom;
    waitingForRoom = [];
    for (const resolve of ready) resolve();
  };

  const start = (payload: JobPayload<"deliver-message">) => {
    const id = jobIdFor("deliver-message", payload);
    const context = {
      id,
      name: "deliver-message" as const,
      queue: "delivery" as const,
      attemptsMade: 0,
      attempts: 1,
    };
    const run = options
      .deliver(payload, context)
      .then(
        () => undefined,
        async (error: unknown) => {
          // A live lease, a database hiccup: BullMQ's retries take over from here.
          options.logger.warn("inline delivery failed, enqueued", {
            message_id: payload.messageId,
            error: (error as Error).message,
          });
          await options.queues.enqueue("deliver-message", payload);
        },
      )
      .catch((error: unknown) => {
        // Redis down too: the row is still queued or leased, so a delivery sweep brings it back.
        options.logger.warn("inline delivery fallback enqueue failed", {
          message_id: payload.messageId,
          error: (error as Error).message,
        });
      })
      .finally(() => {
        running.delete(run);
        wakeIfRoomy();
      });
    running.add(run);
    return id;
  };

  // A due item of ingest: runs here what fits under the limit; returns what is left to enqueue.
  const takeDue = (item: BulkItem<"deliver-message" | "deliver-messages">): BulkItem[] => {
    if (item.name === "deliver-message") {
      if (running.size >= options.limit) return [item];
      start(item.payload);
      return [];
    }
    const messages = item.payload.messages;
    const left = messages.filter((m) => {
      if (running.size >= options.limit) return true;
      start(m);
      return false;
    });
    return left.length === messages.length ? [item] : deliveryJobsFor(left);
  };

  return {
    take(items) {
      const now = options.now().getTime();
      const rest: BulkItem[] = [];
      for (const item of items) {
        const due = (item.opts?.sendAt?.getTime() ?? now) <= now && !item.opts?.delay && !item.opts?.jobId;
        rest.push(
          ...(due && (item.name === "deliver-message" || item.name === "deliver-messages")
            ? takeDue(item)
            : [item]),
        );
      }
      return rest;
    },
    get inFlight() {
      return running.size;
    },
    room() {
      if (roomy()) return Promise.resolve();
      return new Promise<void>((resolve) => waitingForRoom.push(resolve));
    },
    async drain() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
