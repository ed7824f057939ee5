// One long-lived HTTP/2 connection per origin (APNs asks clients to keep theirs open), replaced
// when it closes or fails. `http://` origins speak cleartext h2 (prior knowledge), for tests.
import http2 from "node:http2";
import type { HttpResponse } from "./http";

export class Http2Client {
  private session: http2.ClientHttp2Session | undefined;

  constructor(private readonly origin: string) {}

  /** Resolves with any HTTP answer; rejects when none came in time or the connection failed. */
  post(
    path: string,
    headers: Record<string, string>,
    body: string,
    timeoutMs: number,
  ): Promise<HttpResponse> {
    return new Promise((resolve, reject) => {
      const session = this.connect();
      let stream: http2.ClientHttp2Stream;
      try {
        stream = session.request({ ":method": "POST", ":path": path, ...headers });
      } catch (error) {
        // The connection was already going away; the next request opens a new one.
        this.forget(session);
        reject(error);
        return;
      }
      const settle = () => {
        clearTimeout(timer);
        session.off("error", fail);
      };
      const fail = (error: unknown) => {
        settle();
        reject(error);
      };
      const timer = setTimeout(() => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        const error = new Error(`no answer within ${timeoutMs} ms`);
        error.name = "TimeoutError";
        fail(error);
      }, timeoutMs);
      session.once("error", fail);
      let status = 0;
      const responseHeaders = new Headers();
      const chunks: Buffer[] = [];
      stream.on("response", (received) => {
        status = Number(received[":status"]);
        for (const [name, value] of Object.entries(received)) {
          if (!name.startsWith(":") && value !== undefined) responseHeaders.set(name, String(value));
        }
      });
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        settle();
        resolve({ status, headers: responseHeaders, text: Buffer.concat(chunks).toString("utf8") });
      });
      stream.on("error", fail);
      stream.end(body);
    });
  }

  async close(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    if (session && !session.closed) await new Promise<void>((resolve) => session.close(() => resolve()));
  }

  private forget(session: http2.ClientHttp2Session): void {
    if (this.session === session) this.session = undefined;
  }

  private connect(): http2.ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const session = http2.connect(this.origin);
    // A failed connection is reported to the waiting requests; this keeps it from crashing the process.
    session.on("error", () => undefined);
    session.on("close", () => this.forget(session));
    session.on("goaway", () => this.forget(session));
    session.unref();
    this.session = session;
    return session;
  }
}
