import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startOutboxRelay } from "@svc/engine";
import { createLogCapture, createLogger } from "@svc/log";
import { createNoticeBus, redisTopologyOf } from "@svc/queue";
import { startHarness, type Harness } from "./service-harness";

// An API listening on a port that is its own `api.public_url` (so review links in notifications
// are real), with a webhook channel `hook` whose deliveries a local receiver collects; and the
// outbox relay that the worker processes run, for tests that run the API alone.

/** What the webhook channel delivered: one JSON body per notification. */
export interface Delivered {
  recipient: { external_id: string };
  content: { title: string; body: string };
}

export interface ReviewedApi {
  h: Harness;
  /** `http://127.0.0.1:<port>`: where the API listens, and its public URL. */
  base: string;
  delivered: Delivered[];
  /** The environment the webhook channel's secret is read from (hand it to workers). */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startReviewedApi(name: string): Promise<ReviewedApi> {
  const delivered: Delivered[] = [];
  const sink = createServer((req, res) => {
    void readBody(req).then((body) => {
      delivered.push(JSON.parse(body) as Delivered);
      res.writeHead(204).end();
    });
  });
  sink.listen(0, "127.0.0.1");
  // The API's own address is its public URL, so it must be known before the configuration is.
  const server: Server = createServer();
  server.listen(0, "127.0.0.1");
  await Promise.all([sink, server].map((s) => new Promise<void>((resolve) => s.once("listening", resolve))));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const env = { HOOK_SECRET: `${name}-hook-secret` };
  const h = await startHarness(name, {
    config: {
      api: { public_url: base },
      channels: {
        hook: {
          provider: "webhook",
          url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}/notify`,
          secret_env: "HOOK_SECRET",
        },
      },
    },
    env,
  });
  server.on("request", h.app);
  return {
    h,
    base,
    delivered,
    env,
    async close() {
      await Promise.all([server, sink].map((s) => new Promise((resolve) => s.close(resolve))));
      await h.close();
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** The outbox relay of a worker process, beside an API-only test (docs/outbox.md "The relay"). */
export function startTestRelay(h: Harness): { close(): Promise<void> } {
  const notices = createNoticeBus({ redis: redisTopologyOf(h.config.redis), prefix: h.config.redis.prefix });
  const relay = startOutboxRelay({
    prisma: h.prisma,
    notices,
    consumers: [],
    logger: createLogger({ service: "test-relay", level: "error", stream: createLogCapture().stream }),
  });
  return {
    async close() {
      await relay.close();
      await notices.close();
    },
  };
}
