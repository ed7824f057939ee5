import {
  AggregatorRegistry,
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type PrometheusContentType,
} from "prom-client";

// svc's Prometheus metrics (docs/operations.md "Metrics"), defined once for every process: the
// API records HTTP requests, workers record what their jobs did, and any process serving
// /metrics reports its queues' sizes. Labels are bounded sets (route templates, statuses, reason
// codes, channel and provider names), never ids or free text.

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });
/**
 * Queue sizes, read from Redis by the process that answers a scrape. Kept apart from what each
 * process counts, because under `api.processes` > 1 the counts of all API processes are summed
 * and a queue size must not be.
 */
export const queueRegistry = new Registry();
// What an API process reports when its supervisor gathers the counts of all of them.
AggregatorRegistry.setRegistries([metricsRegistry]);

const register = [metricsRegistry];

export const httpRequests = new Counter({
  name: "svc_http_requests_total",
  help: "HTTP requests answered, by method, route template and status",
  labelNames: ["method", "route", "status"] as const,
  registers: register,
});

export const httpRequestDuration = new Histogram({
  name: "svc_http_request_duration_seconds",
  help: "Time to answer an HTTP request, by method, route template and status",
  labelNames: ["method", "route", "status"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: register,
});

export const queueJobs = new Gauge({
  name: "svc_queue_jobs",
  help: "Jobs per queue and state (waiting, active, delayed, failed), read from Redis at scrape time",
  labelNames: ["queue", "state"] as const,
  registers: [queueRegistry],
});

export const messagesFinal = new Counter({
  name: "svc_messages_final_total",
  help: "Messages that reached a final status in this process, by status and reason code",
  labelNames: ["status", "reason"] as const,
  registers: register,
});

export const deliveryAttempts = new Counter({
  name: "svc_delivery_attempts_total",
  help: "Provider tries per address, by channel, provider and outcome (ok, retryable, permanent)",
  labelNames: ["channel", "provider", "outcome"] as const,
  registers: register,
});

export const eventToSentSeconds = new Histogram({
  name: "svc_event_to_sent_seconds",
  help: "From an event's acceptance to its message's sent write",
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600],
  registers: register,
});

export const sweepRuns = new Counter({
  name: "svc_sweep_runs_total",
  help: "Sweep runs, by sweep and outcome (ok, error)",
  labelNames: ["sweep", "outcome"] as const,
  registers: register,
});

export const sweepRows = new Counter({
  name: "svc_sweep_rows_total",
  help: "Rows a sweep recovered or changed (re-enqueued, reclaimed, expired, deleted), by sweep",
  labelNames: ["sweep"] as const,
  registers: register,
});

export const callbackDeliveries = new Counter({
  name: "svc_callback_deliveries_total",
  help: "Decision callback posts, by outcome (delivered, retry, failed)",
  labelNames: ["outcome"] as const,
  registers: register,
});

export const webhookDeliveries = new Counter({
  name: "svc_webhook_deliveries_total",
  help: "Webhook tries, by endpoint and outcome (succeeded, retry, failed, deferred)",
  labelNames: ["endpoint", "outcome"] as const,
  registers: register,
});

export const webhookEndpointsDisabled = new Counter({
  name: "svc_webhook_endpoints_disabled_total",
  help: "Webhook endpoints svc disabled, by reason (gone: a 410; failing: webhooks.disable_after)",
  labelNames: ["reason"] as const,
  registers: register,
});

export const inboxStreams = new Gauge({
  name: "svc_inbox_streams",
  help: "Inbox streams (Server-Sent Events) open in this process",
  registers: register,
});

export const inboxStreamEvents = new Counter({
  name: "svc_inbox_stream_events_total",
  help: "Events written to inbox streams, by event (item, update, counts)",
  labelNames: ["event"] as const,
  registers: register,
});

/** What this process counted, as Prometheus text (queue sizes are separate: `queueRegistry`). */
export function metricsText(): Promise<string> {
  return metricsRegistry.metrics();
}

let aggregator: AggregatorRegistry<PrometheusContentType> | undefined;

/**
 * In an API process under a supervisor: answer the supervisor's requests for what this process
 * counted (prom-client sets up that listener with its first aggregator registry).
 */
export function reportToSupervisor(): void {
  aggregator ??= new AggregatorRegistry();
}

/**
 * In the supervisor of `api.processes` > 1: the counts of every API process, summed per series
 * (prom-client's cluster aggregation over the IPC channel node:cluster opened).
 */
export function clusterMetricsText(): Promise<string> {
  aggregator ??= new AggregatorRegistry();
  return aggregator.clusterMetrics();
}

export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;
