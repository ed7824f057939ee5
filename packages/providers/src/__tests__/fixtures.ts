// Factories and real local servers for the provider tests.
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import type { ChannelConfig, Env } from "@svc/config";
import type { ProviderContext, SendRequest } from "../provider";

export const NOW = new Date("2025-03-01T12:00:00.000Z");

export function sendRequest(overrides: Partial<SendRequest> = {}): SendRequest {
  return {
    messageId: "msg_01JNE7Z5Q8R2W3X4Y5Z6A7B8C9",
    channel: "hook",
    to: "user-42",
    recipient: { external_id: "user-42", locale: "en", timezone: "Europe/Berlin" },
    category: "account",
    importance: "normal",
    content: {
      title: "Your order shipped",
      body: "Order 1001 is on its way.",
      url: "https://shop.example/o/1001",
      thread: "order-1001",
    },
    data: { order: 1001 },
    trackingToken: null,
    unsubscribeUrl: null,
    preferencesUrl: null,
    allowUnsubscribe: false,
    ...overrides,
  };
}

export function channel(settings: Record<string, unknown>): ChannelConfig {
  return settings as ChannelConfig;
}

/** What createProvider gets in the tests: the given variables and a clock stopped at NOW. */
export function providerContext(env: Env): ProviderContext {
  return { env, now: () => NOW };
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | object;
  /** Never answer (for timeouts). */
  hang?: boolean;
}

export interface TestHttpServer {
  url: string;
  requests: RecordedRequest[];
  /** Answers to give, in order; the last one repeats. */
  replies: Reply[];
  /** When set, picks the answer instead of `replies` (for servers with several endpoints). */
  route?: (request: RecordedRequest) => Reply;
  close(): Promise<void>;
}

export async function startHttpServer(
  replies: Reply[] = [{ status: 200, body: {} }],
): Promise<TestHttpServer> {
  const requests: RecordedRequest[] = [];
  const state: TestHttpServer = { url: "", requests, replies, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const recorded = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(recorded);
      const reply = state.route?.(recorded) ??
        state.replies[Math.min(requests.length - 1, state.replies.length - 1)] ?? { status: 200 };
      if (reply.hang) return;
      const body = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? {});
      res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/**
 * A fresh server for each test of the enclosing describe, closed after it. The handle it returns
 * stands for whichever server the current test has, so providers built in a test reach that one.
 */
export function useHttpServer(replies: Reply[] = [{ status: 200, body: {} }]): TestHttpServer {
  let current: TestHttpServer | undefined;
  const started = (): TestHttpServer => {
    if (!current) throw new Error("useHttpServer: the server runs only while a test runs");
    return current;
  };
  beforeEach(async () => {
    current = await startHttpServer([...replies]);
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    get url() {
      return started().url;
    },
    get requests() {
      return started().requests;
    },
    get replies() {
      return started().replies;
    },
    set replies(value: Reply[]) {
      started().replies = value;
    },
    get route() {
      return started().route;
    },
    set route(value: ((request: RecordedRequest) => Reply) | undefined) {
      started().route = value;
    },
    close: () => started().close(),
  };
}

/** A port nothing listens on (connections are refused). */
export async function refusedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The origin of a port nothing listens on. */
export async function refusedOrigin(): Promise<string> {
  return `http://127.0.0.1:${await refusedPort()}`;
}
