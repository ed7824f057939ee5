import type { SvcConfig } from "@svc/config";
import { QUEUE_NAMES, jobNamesOf, sweepHandler, type JobHandlers, type JobLogger, type QueueName, type Queues, type Sweep } from "@svc/queue";
import { applyPolicyJob, ingestEventJob, requeuePendingEventsSweep } from "@svc/engine";
import type { PrismaClient } from "@svc/store";
import { reportDeadJobsSweep } from "./report-dead-jobs";

export interface HandlerDeps {
  queues: Queues;
  logger: JobLogger;
  prisma: PrismaClient;
  config: SvcConfig;
  now: () => Date;
}

export interface HandlerRegistry {
  handlers: JobHandlers;
  /** Registered as job schedulers by the process that runs the `scheduler` queue. */
  sweeps: Sweep[];
}

// The one place processors are wired to job names. The engine's use cases (ingest, policy,
// delivery, digests, screening, callbacks) and their sweeps are added here as they land.
export function buildHandlers(deps: HandlerDeps): HandlerRegistry {
  const sweeps: Sweep[] = [reportDeadJobsSweep(deps), requeuePendingEventsSweep(deps)];
  return {
    handlers: {
      sweep: sweepHandler(sweeps),
      "ingest-event": ingestEventJob(deps),
      // Ingest composes inline; apply-policy (re)composes one (event, rule) when a job asks for it.
      "apply-policy": applyPolicyJob(deps),
    },
    sweeps,
  };
}

/** Queues for which every job name has a processor: what an embedded process can run. */
export function queuesWithHandlers(handlers: JobHandlers): QueueName[] {
  return QUEUE_NAMES.filter((queue) => jobNamesOf(queue).every((name) => handlers[name] !== undefined));
}
