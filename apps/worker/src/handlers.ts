import { sweepHandler, type JobHandlers, type JobLogger, type Queues, type Sweep } from "@svc/queue";
import { reportDeadJobsSweep } from "./report-dead-jobs";

export interface HandlerDeps {
  queues: Queues;
  logger: JobLogger;
}

export interface HandlerRegistry {
  handlers: JobHandlers;
  /** Registered as job schedulers by the process that runs the `scheduler` queue. */
  sweeps: Sweep[];
}

// The one place processors are wired to job names. The engine's use cases (ingest, policy,
// delivery, digests, screening, callbacks) and their sweeps are added here as they land.
export function buildHandlers(deps: HandlerDeps): HandlerRegistry {
  const sweeps: Sweep[] = [reportDeadJobsSweep(deps)];
  return {
    handlers: { sweep: sweepHandler(sweeps) },
    sweeps,
  };
}
