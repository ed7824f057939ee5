import { request, type IncomingMessage } from "node:http";

// A Server-Sent Events reader for tests and benchmarks (the inbox stream, docs/inbox.md): it
// parses the stream as a browser's EventSource does, but leaves reconnecting to the caller, who
// sets `Last-Event-ID` explicitly.

export interface ServerSentEvent {
  /** The event's `id` field (undefined when the event had none). */
  id: string | undefined;
  event: string;
  data: string;
  /** When it arrived (performance.now()). */
  at: number;
}

export interface EventStream {
  status: number;
  headers: IncomingMessage["headers"];
  /** The body of a refused stream (a problem document), else "". */
  body: string;
  events: ServerSentEvent[];
  /** Comment lines (heartbeats) received, with their arrival times. */
  comments: number[];
  /** Resolves with the first event (from the start) matching `match`, or rejects after `timeoutMs`. */
  next(match: (event: ServerSentEvent) => boolean, timeoutMs?: number): Promise<ServerSentEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export function openEventStream(
  url: string,
  headers: Record<string, string> = {},
  options: { agent?: import("node:http").Agent } = {},
): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const waiters: { match: (e: ServerSentEvent) => boolean; resolve: (e: ServerSentEvent) => void }[] = [];
    const req = request(
      url,
      { headers: { Accept: "text/event-stream", ...headers }, agent: options.agent },
      (res) => {
        res.setEncoding("utf8");
        let endResolve: () => void = () => undefined;
        const stream: EventStream = {
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: "",
          events: [],
          comments: [],
          next(match, timeoutMs = 5_000) {
            const found = stream.events.find(match);
            if (found) return Promise.resolve(found);
            return new Promise((resolveEvent, rejectEvent) => {
              const timer = setTimeout(() => {
                waiters.splice(waiters.indexOf(waiter), 1);
                rejectEvent(
                  new Error(
                    `no matching event within ${timeoutMs} ms (got ${stream.events.map((e) => e.event).join(", ")})`,
                  ),
                );
              }, timeoutMs);
              const waiter = {
                match,
                resolve: (event: ServerSentEvent) => {
                  clearTimeout(timer);
                  resolveEvent(event);
                },
              };
              waiters.push(waiter);
            });
          },
          ended: new Promise<void>((r) => (endResolve = r)),
          close: () => req.destroy(),
        };
        res.on("end", () => endResolve());
        res.on("close", () => endResolve());
        if (stream.status !== 200) {
          res.on("data", (chunk: string) => (stream.body += chunk));
          res.on("end", () => resolve(stream));
          return;
        }
        let buffer = "";
        let id: string | undefined;
        let event = "message";
        let data: string[] = [];
        res.on("data", (chunk: string) => {
          buffer += chunk;
          let newline: number;
          while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
            const line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
            if (line === "") {
              if (data.length > 0) {
                const received: ServerSentEvent = { id, event, data: data.join("\n"), at: performance.now() };
                stream.events.push(received);
                for (const waiter of [...waiters])
                  if (waiter.match(received)) {
                    waiters.splice(waiters.indexOf(waiter), 1);
                    waiter.resolve(received);
                  }
              }
              id = undefined;
              event = "message";
              data = [];
            } else if (line.startsWith(":")) {
              stream.comments.push(performance.now());
            } else {
              const colon = line.indexOf(":");
              const field = colon < 0 ? line : line.slice(0, colon);
              const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
              if (field === "id") id = value;
              else if (field === "event") event = value;
              else if (field === "data") data.push(value);
            }
          }
        });
        resolve(stream);
      },
    );
    req.on("error", reject);
    req.end();
  });
}
