import type { Request, Response } from "express";
import type { InboxPerson, InboxStreams } from "@svc/engine";

// The HTTP side of an inbox stream (docs/inbox.md "The stream"): Server-Sent Events headers once the
// stream is accepted (a refusal is still an ordinary problem response), and a client that stops
// reading is let go before its buffer grows past a bound.

/** Bytes buffered for a slow client before its stream is closed (it resumes with Last-Event-ID). */
const MAX_BUFFERED_BYTES = 256 * 1024;
/** What EventSource waits before reconnecting after the stream ends. */
const RETRY_MS = 3_000;

export async function serveInboxStream(
  streams: InboxStreams,
  person: InboxPerson,
  after: bigint | null,
  req: Request,
  res: Response,
): Promise<void> {
  const start = () => {
    if (res.headersSent) return;
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store, no-transform",
      Connection: "keep-alive",
      // Proxies such as nginx must not buffer the stream.
      "X-Accel-Buffering": "no",
    });
    res.write(`retry: ${RETRY_MS}\n\n`);
  };
  const close = await streams.open(person, after, {
    write(chunk) {
      if (res.writableEnded || res.destroyed) return false;
      start();
      res.write(chunk);
      return res.writableLength <= MAX_BUFFERED_BYTES;
    },
    end() {
      if (res.writableEnded) return;
      start();
      res.end();
    },
  });
  start();
  res.socket?.setNoDelay(true);
  if (req.socket.destroyed || res.destroyed) return close();
  res.once("close", close);
}
