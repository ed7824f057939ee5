import {
  jobIdFor,
  type BulkItem,
  type JobHandler,
  type JobLogger,
  type JobPayload,
  type Queues,
} from "@svc/queue";

// Skips the queue hop for messages due now (docs/delivery.md "Inline delivery"): a process that
// runs both ingest and delivery hands ingest's due `deliver-message` follow-ups straight to the
// delivery handler instead of a round trip through Redis. The guarantees stay those of a lost job:
// the row is committed `queued` before anything here runs, so a crash leaves it to `requeue-due`
// (queued) or `reclaim-leases` (sending); an error falls back to enqueueing the job.

export interface InlineDeliveryOptions {
  /** The `deliver-message` handler this process runs (sharing its batches). */
  deliver: JobHandler<"deliver-message">;
  /** Where everything not taken goes (and the fallback after an error). */
  queues: Pick<Queues, "enqueue" | "enqueueBulk">;
  logger: Pick<JobLogger, "warn">;
  now: () => Date;
  /** Most inline deliveries at once; beyond it items are enqueued as usual (backpressure). */
  limit: number;
}

export interface InlineDelivery {
  /** Queue facade for ingest: due deliveries run here; other items, and any over the limit, are enqueued. */
  queues: Pick<Queues, "enqueueBulk">;
  /** Deliveries started here and not ended yet. */
  readonly inFlight: number;
  /** Resolves once every delivery started here has ended (graceful shutdown). */
  drain(): Promise<void>;
}

export function inlineDelivery(options: InlineDeliveryOptions): InlineDelivery {
  const running = new Set<Promise<void>>();

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
      .finally(() => running.delete(run));
    running.add(run);
    return id;
  };

  return {
    queues: {
      async enqueueBulk(items: readonly BulkItem[]) {
        const now = options.now().getTime();
        const ids: (string | undefined)[] = items.map((item) => {
          const due =
            item.name === "deliver-message" &&
            (item.opts?.sendAt?.getTime() ?? now) <= now &&
            !item.opts?.delay &&
            !item.opts?.jobId;
          if (!due || running.size >= options.limit) return undefined;
          return start(item.payload as JobPayload<"deliver-message">);
        });
        const rest = items.filter((_, i) => ids[i] === undefined);
        if (rest.length > 0) {
          const enqueued = await options.queues.enqueueBulk(rest);
          let next = 0;
          for (let i = 0; i < ids.length; i++) if (ids[i] === undefined) ids[i] = enqueued[next++];
        }
        return ids as string[];
      },
    },
    get inFlight() {
      return running.size;
    },
    async drain() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
