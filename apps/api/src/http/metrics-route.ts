import type { Express } from "express";
import { AppError, hasScope } from "@svc/core";
import { authenticate } from "@svc/engine";
import { metrics } from "@svc/log";
import { scrapeMetrics, type Queues } from "@svc/queue";
import type { RootDatabase } from "@svc/store";
import { isSupervisedApiProcess, metricsOfAllApiProcesses } from "../api-processes";

const METRICS_PATH = "/metrics";

/**
 * `GET /metrics` on the API's own port, for an admin key only (Prometheus sends it as a bearer
 * token). Operators who prefer a private address instead set `worker.metrics_port`
 * (docs/operations.md "Metrics").
 */
export function mountMetrics(app: Express, queues: Queues, deps: { prisma: RootDatabase; now: () => Date }) {
  app.get(METRICS_PATH, async (req, res) => {
    const principal = await authenticate(deps, req.headers.authorization);
    if (!hasScope(principal, "admin") || principal.agentKey)
      throw new AppError("forbidden", "metrics need an admin API key");
    const counted = isSupervisedApiProcess() ? metricsOfAllApiProcesses : undefined;
    res.type(metrics.METRICS_CONTENT_TYPE).send(await scrapeMetrics(queues, counted));
  });
}
