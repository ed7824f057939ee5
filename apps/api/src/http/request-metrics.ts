import type { RequestHandler } from "express";
import { metrics } from "@svc/log";

// Requests by method, route template and status, with their durations (docs/operations.md
// "Metrics"). The route is the OpenAPI template (`/v1/messages/{id}`), never the raw path, so ids
// never become label values; anything outside the document counts as `other`.

export function requestMetrics(): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once("close", () => {
      const route = (req as { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute ?? "other";
      const labels = { method: req.method, route, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpRequestDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
