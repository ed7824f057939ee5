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
  inboxStore,
  inlineDelivery,
  requeuePendingEventsSweep,
  requeueCallbacksSweep,
  requeueScreeningSweep,
  retentionSweeps,
  screeningGate,
  screeningJobs,
  sendCallbackJob,
  requeueWebhooksSweep,
  sendWebhookJob,
  sendWebhooksJob,
  webhookFanOut,
  EndpointSlots,
  WEBHOOK_PER_ENDPOINT_IN_FLIGHT,
  type OutboxConsumer,
} from "@svc/engine";
import { createGuardedDispatcher, createProviders } from "@svc/providers";
import type { RootDatabase } from "@svc/store";
import { reportDeadJobsSweep } from "./report-dead-jobs";

export interface HandlerDeps {
  queues: Queues;
  logger: JobLogger;
  prisma: RootDatabase;
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
  /** What the outbox relay fans entries out to, besides their notices (docs/outbox.md). */
  outboxConsumers: OutboxConsumer[];
}

// The one place processors are wired to job names. The engine's use cases (ingest, policy,
// delivery, digests, screening, callbacks) and their sweeps are added here as they land.
export function buildHandlers(deps: HandlerDeps): HandlerRegistry {
  // Built once per process; bad channel settings or missing credentials stop the start here.
  // An `inbox` channel delivers into svc's own database (docs/inbox.md "The channel").
  const providers = createProviders(deps.config.channels, {
    env: deps.env,
    now: deps.now,
    allowPrivateAddresses: deps.config.outbound.allow_private_addresses,
    inbox: inboxStore(deps),
  });
  // Recovery sweeps run every `worker.sweep_seconds` (docs/operations.md "Recovery guarantees").
  const timings = recoveryTimings(deps.config.worker);
  const sweeps: Sweep[] = [
    reportDeadJobsSweep(deps),
    requeuePendingEventsSweep(deps, timings),
    ...deliverySweeps(deps, timings),
    closeDueDigestsSweep(deps),
    expireHeldItemsSweep(deps),
    requeueCallbacksSweep(deps),
    requeueWebhooksSweep(deps, { every: timings.sweepEveryMs, graceMs: timings.sweepEveryMs }),
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
  // Webhook POSTs go to URLs taken from data: internal addresses are refused at every connect
  // unless webhooks.allow_private_urls (docs/webhooks.md "Endpoint URLs").
  const webhookDispatcher = createGuardedDispatcher({
    allowPrivate: deps.config.webhooks.allow_private_urls,
  });
  const webhookDeps = { ...deps, dispatcher: webhookDispatcher };
  const webhookSlots = new EndpointSlots(WEBHOOK_PER_ENDPOINT_IN_FLIGHT);
  // The jobs that compose messages deliver the due ones here when this process delivers.
  const composing = inline ? { ...deps, deliverHere: inline } : deps;
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
      "send-webhook": sendWebhookJob(webhookDeps, webhookSlots),
      "send-webhooks": sendWebhooksJob(webhookDeps, webhookSlots),
      // Broadcast chunks hand their due deliveries to this process too (docs/delivery.md "Inline
      // delivery"), and compose no faster than it delivers them (docs/broadcasts.md "How it runs").
      ...broadcastJobs(composing),
    },
    sweeps,
    drain: async () => {
      await inline?.drain();
      await webhookDispatcher.close();
    },
    outboxConsumers: [webhookFanOut(deps)],
  };
}

/** Queues for which every job name has a processor: what an embedded process can run. */
export function queuesWithHandlers(handlers: JobHandlers): QueueName[] {
  return QUEUE_NAMES.filter((queue) => jobNamesOf(queue).every((name) => handlers[name] !== undefined));
}
