import { registerSchedules, type QueueName } from "@svc/queue";
import { buildHandlers, queuesWithHandlers, type HandlerDeps } from "./handlers";
import { startWorkers, type RunningWorkers } from "./start-workers";

export interface WorkerProcess extends RunningWorkers {
  /** Registers the sweeps as job schedulers when this process runs the `scheduler` queue. */
  scheduleSweeps(): Promise<void>;
}

/**
 * The workers of one process, for the worker app and the API's embedded workers alike: wires the
 * processors and starts the workers of `queueNames` (default: every queue that has processors).
 * `close()` stops taking jobs, waits for the active ones, then for inline deliveries.
 */
export function startWorkerProcess(deps: HandlerDeps, queueNames?: readonly QueueName[]): WorkerProcess {
  const { handlers, sweeps, drain } = buildHandlers(deps);
  const running = startWorkers({
    config: deps.config,
    handlers,
    queues: queueNames ?? queuesWithHandlers(handlers),
    logger: deps.logger,
  });
  return {
    queues: running.queues,
    close: () => running.close().then(drain),
    async scheduleSweeps() {
      if (!running.queues.includes("scheduler")) return;
      await deps.queues.ready(30_000);
      await registerSchedules(deps.queues, sweeps);
    },
  };
}
