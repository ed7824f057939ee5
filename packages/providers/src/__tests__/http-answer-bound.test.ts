import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { MAX_ANSWER_BYTES, postWithDeadline } from "../http";

// docs/providers.md "Outbound requests to addresses from data": an answer is read up to
// MAX_ANSWER_BYTES. A receiver streaming 50 MB is cut there: the request ends with the status
// and the first 64 KiB, the rest never read.

let server: Server;
let url = "";
let written = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(503, { "content-type": "text/plain" });
    const chunk = Buffer.alloc(1024 * 1024, "x");
    written = 0;
    const pump = () => {
      while (written < 50 * 1024 * 1024) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
      res.end();
    };
    res.on("error", () => undefined);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it("reads at most MAX_ANSWER_BYTES of an answer and stops reading there", async () => {
  const response = await postWithDeadline({ url, headers: {}, body: "{}", timeoutMs: 10_000 });
  expect(response.status).toBe(503);
  expect(response.text).toHaveLength(MAX_ANSWER_BYTES);
  expect(response.text).toBe("x".repeat(MAX_ANSWER_BYTES));
  // The server could not write the 50 MB: the connection was closed long before.
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(written).toBeLessThan(20 * 1024 * 1024);
});

it("reads a short answer whole", async () => {
  const small = createServer((req, res) => {
    req.resume();
    res.end('{"error":"NotRegistered"}');
  });
  await new Promise<void>((resolve) => small.listen(0, "127.0.0.1", resolve));
  try {
    const port = (small.address() as AddressInfo).port;
    const response = await postWithDeadline({
      url: `http://127.0.0.1:${port}/`,
      headers: {},
      body: "{}",
      timeoutMs: 5_000,
    });
    expect(response).toMatchObject({ status: 200, text: '{"error":"NotRegistered"}' });
  } finally {
    small.closeAllConnections();
    await new Promise((resolve) => small.close(resolve));
  }
});
