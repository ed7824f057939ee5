import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { postWithDeadline, providerPost, systemErrorCode } from "../http";
import { accepted } from "../provider";

// The HTTP client every provider, callback and model call goes through (http.ts), against a real
// local server: answers whatever their status, several header values joined, one connection kept
// for sequential requests, and the deadline ending a request whose answer never finishes.

let server: Server;
let url = "";
const sockets = new Set<Socket>();
let handler: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;

beforeAll(async () => {
  server = createServer((req, res) => handler(req, res));
  server.on("connection", (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => resolve(body));
  });

it("posts the body and headers as given and returns any status with its text and headers", async () => {
  const seen: { method?: string; type?: string; body?: string }[] = [];
  handler = async (req, res) => {
    seen.push({ method: req.method, type: req.headers["content-type"], body: await readBody(req) });
    res.setHeader("set-cookie", ["a=1", "b=2"]);
    res.writeHead(503, { "retry-after": "7" }).end("try later");
  };
  const answer = await postWithDeadline({
    url,
    headers: { "Content-Type": "application/json" },
    body: '{"n":1}',
    timeoutMs: 5_000,
  });
  expect(seen).toEqual([{ method: "POST", type: "application/json", body: '{"n":1}' }]);
  expect(answer.status).toBe(503);
  expect(answer.text).toBe("try later");
  expect(answer.headers.get("Retry-After")).toBe("7");
  expect(answer.headers.get("set-cookie")).toBe("a=1, b=2");
  expect(answer.headers.get("x-missing")).toBeNull();
});

it("keeps one connection for requests that follow each other", async () => {
  handler = async (req, res) => {
    await readBody(req);
    res.writeHead(200).end("{}");
  };
  sockets.clear();
  for (let i = 0; i < 5; i++) await postWithDeadline({ url, headers: {}, body: "x", timeoutMs: 5_000 });
  expect(sockets.size).toBe(1);
});

it("gives up when the answer does not finish within the deadline: a retryable timeout", async () => {
  handler = async (req, res) => {
    await readBody(req);
    res.writeHead(200);
    res.write("{"); // and never ends
  };
  const started = Date.now();
  const post = providerPost("webhook", 300);
  const result = await post({ url, headers: {}, body: "x" }, () => accepted());
  expect(result).toEqual({ ok: false, retryable: true, error: "webhook timeout after 300 ms" });
  expect(Date.now() - started).toBeLessThan(3_000);
});

it("names the system error of a refused connection", async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const error = await postWithDeadline({
    url: `http://127.0.0.1:${port}/`,
    headers: {},
    body: "x",
    timeoutMs: 2_000,
  }).catch((e: unknown) => e);
  expect(systemErrorCode(error)).toBe("ECONNREFUSED");
  const result = await providerPost("webhook", 2_000)(
    { url: `http://127.0.0.1:${port}/`, headers: {}, body: "x" },
    () => accepted(),
  );
  expect(result).toEqual({ ok: false, retryable: true, error: "webhook connection failed" });
});
