import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

// The webhook sink of the fault runs, in a process of its own (started by ./sink.ts): it records
// every message id (the `Idempotency-Key` svc sends) with the time it read the request and the svc
// process that sent it (`?from=<name>`), answers 200 after a few milliseconds so sends are in
// flight when a fault hits, and reports each arrival to its parent over IPC. Being its own process,
// it reads requests on time even when the test process is busy.

const send = (message: unknown) => process.send?.(message);

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const id = String(req.headers["idempotency-key"] ?? "");
    const from = new URL(req.url ?? "/", "http://sink").searchParams.get("from") ?? "unknown";
    send({ kind: "arrival", id, at: Date.now(), from });
    setTimeout(
      () => res.writeHead(200, { "content-type": "application/json" }).end("{}"),
      2 + Math.random() * 10,
    );
  });
});

server.listen(0, "127.0.0.1", () => {
  send({ kind: "listening", port: (server.address() as AddressInfo).port });
});

// A flush: every arrival reported before the answer has reached the parent (IPC keeps order).
process.on("message", (message: { kind?: string }) => {
  if (message.kind === "flush") send({ kind: "flushed" });
});

// The parent going away (a test timed out) ends the sink too.
process.on("disconnect", () => process.exit(0));
