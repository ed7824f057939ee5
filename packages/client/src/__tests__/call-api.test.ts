import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { API_PROBLEM_UNREADABLE, callApi, createSvcClient } from "../svc-client";

// The client against a real HTTP server: the key is sent, answers become ApiResults (the body, the
// API's problem, or a problem made up for a non-problem error page), and a request that gets no
// answer rejects (refused, or past timeoutMs).

let server: Server;
let url: string;
let seen: IncomingHttpHeaders = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    seen = req.headers;
    if (req.url === "/v1/messages/msg_ok") {
      res.writeHead(200, { "Content-Type": "application/json" }).end('{"id":"msg_ok","status":"queued"}');
    } else if (req.url === "/v1/messages/msg_missing") {
      res
        .writeHead(404, { "Content-Type": "application/problem+json" })
        .end('{"type":"about:blank","title":"Not found","status":404,"detail":"no message \'msg_missing\'"}');
    } else if (req.url === "/v1/messages/msg_proxy") {
      res.writeHead(502, { "Content-Type": "text/html" }).end("<html>Bad gateway</html>");
    }
    // msg_silent: never answered
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const get = (id: string, timeoutMs?: number) =>
  callApi(
    createSvcClient({ url, key: "svc_test", timeoutMs, userAgent: "svc-test/1" }).GET("/v1/messages/{id}", {
      params: { path: { id } },
    }),
  );

it("sends the key and answers the body", async () => {
  expect(await get("msg_ok")).toEqual({ ok: true, status: 200, data: { id: "msg_ok", status: "queued" } });
  expect(seen).toMatchObject({ authorization: "Bearer svc_test", "user-agent": "svc-test/1" });
});

it("answers the API's problem", async () => {
  expect(await get("msg_missing")).toEqual({
    ok: false,
    status: 404,
    problem: { type: "about:blank", title: "Not found", status: 404, detail: "no message 'msg_missing'" },
  });
});

it("makes a problem of an error page that is not one", async () => {
  expect(await get("msg_proxy")).toEqual({
    ok: false,
    status: 502,
    problem: {
      type: "about:blank",
      title: API_PROBLEM_UNREADABLE,
      status: 502,
      detail: "HTTP 502: <html>Bad gateway</html>",
    },
  });
});

it("rejects when nothing answers: past timeoutMs, or a refused connection", async () => {
  const started = Date.now();
  await expect(get("msg_silent", 300)).rejects.toMatchObject({ name: "TimeoutError" });
  expect(Date.now() - started).toBeLessThan(2_000);
  const closed = createSvcClient({ url: "http://127.0.0.1:1", key: "k" });
  await expect(callApi(closed.GET("/v1/whoami"))).rejects.toThrow();
});
