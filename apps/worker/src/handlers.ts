import type { Env, SvcConfig } from "@svc/config";
import { recoveryTimings } from "@svc/core";
import {
  QUEUE_NAMES,
  jobNamesOf,
  sweepHandler,
  type JobHandlers,
  type JobLogger,
  type QueueName,
  type Queues,
  type Sweep,
} from "@svc/queue";
import {
  advanceBroadcastsSweep,
  applyPolicyJob,
  broadcastJobs,
  closeDigestJob,
  closeDueDigestsSweep,
  deliverMessageJob,
  deliverMessagesJob,
  deliverySweeps,
  expireHeldItemsSweep,
  ingestJobs,
  inlineDelivery,
  requeuePendingEventsSweep,
  requeueCallbacksSweep,
  requeueScreeningSweep,
  retentionSweeps,
  screeningGate,
  screeningJobs,
  sendCallbackJob,
} from "@svc/engine";
import { createProviders } from "@svc/providers";
import type { PrismaClient } from "@svc/store";
import { reportDeadJobsSweep } from "./report-dead-jobs";

export interface HandlerDeps {
  queues: Queues;
  logger: JobLogger;
  prisma: PrismaClient;
  config: SvcConfig;
  now: () => Date;
  /** Provider credentials (`*_env` settings of channels) are read from it; apps pass process.env. */
  env: Env;
  /**
   * This process runs both ingest and delivery: ingest's messages due now are delivered here
   * without a trip through the delivery queue (docs/delivery.md "Inline delivery").
   */
  deliverInline?: boolean;
}

export interface HandlerRegistry {
  handlers: JobHandlers;
  /** Registered as job schedulers by the process that runs the `scheduler` queue. */
  sweeps: Sweep[];
  /** Waits for inline deliveries to end; call after the workers closed (no new ones start then). */
  drain(): Promise<void>;
}

// The one place processors are wired to job names. The engine's use cases (ingest, policy,
// delivery, digests, screening, callbacks) and their sweeps are added here as they land.
export function buildHandlers(deps: HandlerDeps): HandlerRegistry {
  // Built once per process; bad channel settings or missing credentials stop the start here.
  const providers = createProviders(deps.config.channels, { env: deps.env, now: deps.now });
  // Recovery sweeps run every `worker.sweep_seconds` (docs/operations.md "Recovery guarantees").
  const timings = recoveryTimings(deps.config.worker);
  const sweeps: Sweep[] = [
    reportDeadJobsSweep(deps),
    requeuePendingEventsSweep(deps, timings),
    ...deliverySweeps(deps, timings),
    closeDueDigestsSweep(deps),
    expireHeldItemsSweep(deps),
    requeueCallbacksSweep(deps),
    requeueScreeningSweep(deps, timings),
    advanceBroadcastsSweep(deps),
    // Only with a `retention.*` setting on (docs/operations.md "Data retention").
    ...retentionSweeps(deps),
  ];
  // With screening on, agent messages without a verdict go to the screening queue first.
  const deliver = deliverMessageJob({ ...deps, providers, screen: screeningGate(deps) });
  const inline = deps.deliverInline
    ? inlineDelivery({
        deliver,
        queues: deps.queues,
        logger: deps.logger,
        now: deps.now,
        limit: deps.config.worker.concurrency.delivery,
      })
    : null;
  // The jobs that compose messages deliver the due ones here when this process delivers.
  const composing = inline ? { ...deps, queues: inline.queues } : deps;
  return {
    handlers: {
      sweep: sweepHandler(sweeps),
      ...ingestJobs(composing),
      // Ingest composes inline; apply-policy (re)composes one (event, rule) when a job asks for it.
      "apply-policy": applyPolicyJob(deps),
      "deliver-message": deliver,
      "deliver-messages": deliverMessagesJob(deliver),
      "close-digest": closeDigestJob(deps),
      // Screened messages that pass go on to delivery here too, when this process delivers.
      ...screeningJobs(composing),
      // Refuses to build (ConfigError) when approvals.callback_url is set without SVC_CALLBACK_SECRET.
      "send-callback": sendCallbackJob(deps),
      // Broadcast chunks hand their due deliveries to this process too (docs/delivery.md "Inline
      // delivery"), and compose no faster than it delivers them (docs/broadcasts.md "How it runs").
      ...broadcastJobs(inline ? { ...composing, deliveryRoom: () => inline.room() } : composing),
    },
    sweeps,
    drain: async () => inline?.drain(),
  };
}

/** Queues for which every job name has a processor: what an embedded process can run. */
export function queuesWithHandlers(handlers: JobHandlers): QueueName[] {
  return QUEUE_NAMES.filter((queue) => jobNamesOf(queue).every((name) => handlers[name] !== undefined));
}
