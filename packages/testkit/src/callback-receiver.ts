// A callback receiver for tests: a real HTTP server that checks `Svc-Signature` with its own code,
// as an agent's backend would from docs/approvals.md, not with svc's verifySignature (a test of
// svc's signing must not pass because both sides share a bug).
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One POST as the receiver saw it. */
export interface ReceivedPost {
  raw: Buffer;
  headers: IncomingMessage["headers"];
  /** Signature valid and `t` within 300 s of the receiver's clock. */
  verified: boolean;
  status: number;
}

/** The receiver's own check: HMAC-SHA256(secret, "<t>.<raw body>") in hex, `t` within 300 s. */
export function receiverAccepts(secret: string, raw: Buffer, header: string | undefined, nowSeconds: number) {
  if (!header) return false;
  const fields = new Map<string, string[]>();
  for (const part of header.split(",")) {
    const [key, value] = part.split("=", 2);
    if (key && value) fields.set(key.trim(), [...(fields.get(key.trim()) ?? []), value.trim()]);
  }
  const t = fields.get("t")?.[0];
  if (!t || !/^\d+$/.test(t) || Math.abs(nowSeconds - Number(t)) > 300) return false;
  const expected = createHmac("sha256", secret)
    .update(Buffer.concat([Buffer.from(`${t}.`), raw]))
    .digest();
  return (fields.get("v1") ?? []).some((v) => {
    const given = Buffer.from(v, "hex");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export class CallbackReceiver {
  constructor(readonly secret: string) {}

  /** Every POST, replays included, in order. */
  readonly posts: ReceivedPost[] = [];
  /** Added to the receiver's clock (seconds), to see an old capture arrive late. */
  clockOffsetSeconds = 0;
  /** Milliseconds to wait before answering (a slow receiver). */
  delayMs = 0;
  private statuses: number[] = [200];
  private readonly delays = new Set<NodeJS.Timeout>();
  private server: Server = createServer((req, res) => void this.handle(req, res));
  url = "";

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/svc/decisions`;
    return this;
  }

  /** Each POST with a valid signature takes the next status; the last one repeats. */
  answer(...statuses: number[]): void {
    this.statuses = statuses;
  }

  reset(): void {
    this.posts.length = 0;
    this.clockOffsetSeconds = 0;
    this.delayMs = 0;
    this.statuses = [200];
  }

  close(): Promise<void> {
    for (const timer of this.delays) clearTimeout(timer); // a held answer never comes
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const nowSeconds = Math.floor(Date.now() / 1000) + this.clockOffsetSeconds;
    const header = req.headers["svc-signature"] as string | undefined;
    const verified = receiverAccepts(this.secret, raw, header, nowSeconds);
    const status = !verified ? 401 : this.statuses.length > 1 ? this.statuses.shift()! : this.statuses[0]!;
    this.posts.push({ raw, headers: req.headers, verified, status });
    if (this.delayMs > 0) {
      await new Promise((resolve) => {
        const timer = setTimeout(() => resolve(this.delays.delete(timer)), this.delayMs);
        this.delays.add(timer);
      });
    }
    if (!res.destroyed) res.writeHead(status, { "content-type": "text/plain" }).end(String(status));
  }
}
