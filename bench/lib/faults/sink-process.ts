import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

// The webhook sink of the fault runs, in a process of its own (started by ./sink.ts): it records
// every message id (the `Idempotency-Key` svc sends; a status webhook's event id, with the message
// it is about) with the time it read the request and the svc process that sent it (`?from=<name>`), answers 200 after a few milliseconds so sends are in
// flight when a fault hits, and reports each arrival to its parent over IPC. Being its own process,
// it reads requests on time even when the test process is busy.

const send = (message: unknown) => process.send?.(message);

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const id = String(req.headers["idempotency-key"] ?? "");
    const from = new URL(req.url ?? "/", "http://sink").searchParams.get("from") ?? "unknown";
    send({ kind: "arrival", id, at: Date.now(), from, subject: subjectOf(Buffer.concat(chunks)) });
    setTimeout(
      () => res.writeHead(200, { "content-type": "application/json" }).end("{}"),
      2 + Math.random() * 10,
    );
  });
});

/** A status webhook's subject (`data.id` of `{id, type, created_at, data}`), else null. */
function subjectOf(body: Buffer): string | null {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { type?: unknown; data?: { id?: unknown } };
    return typeof parsed.type === "string" && typeof parsed.data?.id === "string" ? parsed.data.id : null;
  } catch {
    return null;
  }
}

server.listen(0, "127.0.0.1", () => {
  send({ kind: "listening", port: (server.address() as AddressInfo).port });
});

// A flush: every arrival reported before the answer has reached the parent (IPC keeps order).
process.on("message", (message: { kind?: string }) => {
  if (message.kind === "flush") send({ kind: "flushed" });
});

// The parent going away (a test timed out) ends the sink too.
process.on("disconnect", () => process.exit(0));
