import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import request from "supertest";
import { createLogCapture, createLogger, type LogCapture } from "@svc/log";
import { openEventStream, waitFor, type EventStream } from "@svc/testkit";
import { startWorkerProcess, type WorkerProcess } from "@svc/worker";
import { startHarness, type Harness, type HarnessOptions } from "./service-harness";

// The whole in-app inbox for real (docs/inbox.md): the API over real Postgres and Redis, with the
// workers (delivery, and the outbox relay that fans items out to streams) in this process, an
// `in_app` inbox channel, and the API listening on a port so streams can be read over HTTP.

export interface InboxHarness extends Harness {
  workers: WorkerProcess;
  workerLogs: LogCapture;
  /** http://127.0.0.1:<port> of the listening API. */
  base: string;
  server: Server;
  /** A person, created (or replaced) with this profile. */
  person(externalId: string, profile?: Record<string, unknown>): Promise<void>;
  /** A fresh inbox token for the person. */
  mint(externalId: string): Promise<string>;
  /** A supertest agent that sends `Authorization: Bearer <inbox token>`. */
  feed(token: string): ReturnType<typeof request.agent>;
  /** A direct send on the inbox channel; resolves with the message id. */
  send(externalId: string, data?: Record<string, unknown>, extra?: Record<string, unknown>): Promise<string>;
  /** Waits for the message's item and returns its id. */
  itemOf(messageId: string, timeoutMs?: number): Promise<string>;
  /** Opens the person's stream on this API. */
  stream(token: string, headers?: Record<string, string>): Promise<EventStream>;
}

export const INBOX_TEMPLATE = {
  default_locale: "en",
  locales: {
    en: {
      title: "Order {{ data.order }} shipped",
      body: "Your parcel is on its way.",
      url: "https://shop.example/orders/{{ data.order }}",
      channels: { in_app: { body: "Parcel {{ data.order }} is on its way." } },
    },
    de: {
      title: "Bestellung {{ data.order }} versandt",
      body: "Ihr Paket ist unterwegs.",
      url: "https://shop.example/de/orders/{{ data.order }}",
      channels: { in_app: { body: "Paket {{ data.order }} ist unterwegs." } },
    },
  },
};

// The component as its source is now (what `npm run build` and `npm ci` build), for GET /inbox.js.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildInboxElement } = require("../../../../packages/inbox-element/scripts/build.cjs") as {
  buildInboxElement(): Promise<{ gzipBytes: number }>;
};

export async function startInboxHarness(name: string, options: HarnessOptions = {}): Promise<InboxHarness> {
  await buildInboxElement();
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = (options.config ?? {}) as Record<string, Record<string, unknown>>;
  const h = await startHarness(name, {
    ...options,
    config: {
      ...config,
      api: { public_url: base, ...config.api },
      channels: { in_app: { provider: "inbox" }, ...config.channels },
    },
  });
  server.on("request", h.app);
  const workerLogs = createLogCapture();
  const workers = startWorkerProcess({
    queues: h.queues,
    logger: createLogger({ service: `inbox-workers-${name}`, level: "warn", stream: workerLogs.stream }),
    prisma: h.prisma,
    config: h.config,
    now: options.now ?? (() => new Date()),
    env: options.env ?? {},
    deliverInline: true,
  });
  await h.queues.ready(30_000);
  const closeHarness = h.close;
  await h.as().put("/v1/templates/shipped").send(INBOX_TEMPLATE).expect(201);

  const inbox: InboxHarness = {
    ...h,
    workers,
    workerLogs,
    base,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await workers.close();
      await closeHarness();
    },
    async person(externalId, profile = {}) {
      await h
        .as()
        .put(`/v1/recipients/${encodeURIComponent(externalId)}`)
        .send(profile)
        .expect([200, 201]);
    },
    async mint(externalId) {
      const res = await h
        .as()
        .post(`/v1/recipients/${encodeURIComponent(externalId)}/inbox-token`)
        .expect(200);
      return res.body.token as string;
    },
    feed(token) {
      return request.agent(h.app).set("Authorization", `Bearer ${token}`);
    },
    async send(externalId, data = { order: "A-1" }, extra = {}) {
      const res = await h
        .as()
        .post("/v1/messages")
        .send({
          recipient: externalId,
          template: "shipped",
          category: "transactional",
          channels: ["in_app"],
          data,
          ...extra,
        })
        .expect(202);
      return res.body.id as string;
    },
    async itemOf(messageId, timeoutMs = 10_000) {
      const item = await waitFor(() => h.prisma.inboxItem.findUnique({ where: { message_id: messageId } }), {
        timeoutMs,
        what: `the inbox item of ${messageId}`,
      });
      return item.id;
    },
    stream(token, headers = {}) {
      return openEventStream(`${base}/v1/inbox/stream`, { Authorization: `Bearer ${token}`, ...headers });
    },
  };
  return inbox;
}
