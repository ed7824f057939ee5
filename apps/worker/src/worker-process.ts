import { recoveryTimings } from "@svc/core";
import { startOutboxRelay } from "@svc/engine";
import { createNoticeBus, redisTopologyOf, registerSchedules, type QueueName } from "@svc/queue";
import { buildHandlers, queuesWithHandlers, type HandlerDeps } from "./handlers";
import { startWorkers, type RunningWorkers } from "./start-workers";

export interface WorkerProcess extends RunningWorkers {
  /**
   * When this process runs the `scheduler` queue: registers the sweeps as job schedulers, then
   * re-asserts them every `worker.sweep_seconds` until close.
   */
  scheduleSweeps(): Promise<void>;
}

/**
 * The workers of one process, for the worker app and the API's embedded workers alike: wires the
 * processors and starts the workers of `queueNames` (default: every queue that has processors).
 * `close()` stops taking jobs, waits for the active ones, then for inline deliveries.
 */
export function startWorkerProcess(deps: HandlerDeps, queueNames?: readonly QueueName[]): WorkerProcess {
  const { handlers, sweeps, drain, outboxConsumers } = buildHandlers(deps);
  const running = startWorkers({
    config: deps.config,
    handlers,
    queues: queueNames ?? queuesWithHandlers(handlers),
    logger: deps.logger,
  });
  // The outbox relay runs beside the callbacks queue: what svc tells the outside leaves from the
  // same processes (docs/outbox.md "The relay").
  const relaying = running.queues.includes("callbacks");
  const notices = relaying
    ? createNoticeBus({ redis: redisTopologyOf(deps.config.redis), prefix: deps.config.redis.prefix })
    : null;
  const relay = notices
    ? startOutboxRelay({ prisma: deps.prisma, notices, consumers: outboxConsumers, logger: deps.logger })
    : null;
  let reassert: NodeJS.Timeout | undefined;
  return {
    queues: running.queues,
    close: async () => {
      clearInterval(reassert);
      await relay?.close();
      await notices?.close();
      await running.close().then(drain);
    },
    async scheduleSweeps() {
      if (!running.queues.includes("scheduler")) return;
      await deps.queues.ready(30_000);
      await registerSchedules(deps.queues, sweeps);
      // Job schedulers live in Redis: a Redis restarted without its data forgets them, and the
      // sweeps that recover everything else would never run again. Upserting an existing scheduler
      // keeps its next run, so re-asserting often costs nothing (docs/operations.md).
      reassert = setInterval(() => {
        registerSchedules(deps.queues, sweeps, { prune: false }).catch((error: unknown) =>
          deps.logger.warn("job schedulers not re-asserted; retrying", {
            error: error instanceof Error ? error.message : String(error),
          }),
        );
      }, recoveryTimings(deps.config.worker).sweepEveryMs);
      reassert.unref();
    },
  };
}
