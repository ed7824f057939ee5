import { createServer, type Server } from "node:http";
import { metrics } from "@svc/log";
import { scrapeMetrics, type JobLogger, type Queues } from "@svc/queue";

// A worker's `GET /metrics` (Prometheus text) on `worker.metrics_host:worker.metrics_port`, with no
// authentication: bind it to an address only Prometheus reaches (docs/operations.md "Metrics").

export interface MetricsListener {
  port: number;
  close(): Promise<void>;
}

export async function startMetricsListener(options: {
  host: string;
  port: number;
  queues: Pick<Queues, "queue">;
  logger: JobLogger;
}): Promise<MetricsListener> {
  const server: Server = createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    scrapeMetrics(options.queues).then(
      (text) => res.writeHead(200, { "content-type": metrics.METRICS_CONTENT_TYPE }).end(text),
      (error: unknown) => {
        options.logger.warn("metrics scrape failed", { error: (error as Error).message });
        res.writeHead(500, { "content-type": "text/plain" }).end("scrape failed\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  options.logger.info("metrics listening", { host: options.host, port });
  return {
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
