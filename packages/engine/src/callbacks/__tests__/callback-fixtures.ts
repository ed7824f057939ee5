// A callback test bench: a real database, Redis prefix and BullMQ worker running `send-callback`,
// and a callback receiver, a real HTTP server that checks `Svc-Signature` with its own code (as
// an agent's backend would, from docs/approvals.md), not with svc's verifySignature.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseConfig, type SvcConfig } from "@svc/config";
import { createQueues, createWorker, dispatchTo, type Queues } from "@svc/queue";
import { $transaction, type PrismaClient } from "@svc/store";
import { createTestDatabase, testRedisPrefix, type TestDatabase, type TestRedisPrefix } from "@svc/testkit";
import type { Worker } from "bullmq";
import { callbackJob, recordDecisionCallback, type DecisionCallbackBody } from "../record-callback";
import { sendCallbackJob, type SendCallbackDeps } from "../send-callback";

export const CALLBACK_SECRET = "callback-test-secret-0123456789";

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
  /** Every POST, replays included, in order. */
  readonly posts: ReceivedPost[] = [];
  /** Added to the receiver's clock (seconds), to see an old capture arrive late. */
  clockOffsetSeconds = 0;
  /** Milliseconds to wait before answering (a slow receiver). */
  delayMs = 0;
  private statuses: number[] = [200];
  private server: Server = createServer((req, res) => void this.handle(req, res));
  url = "";

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/svc/decisions`;
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
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const nowSeconds = Math.floor(Date.now() / 1000) + this.clockOffsetSeconds;
    const header = req.headers["svc-signature"] as string | undefined;
    const verified = receiverAccepts(CALLBACK_SECRET, raw, header, nowSeconds);
    const status = !verified ? 401 : this.statuses.length > 1 ? this.statuses.shift()! : this.statuses[0]!;
    this.posts.push({ raw, headers: req.headers, verified, status });
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (!res.destroyed) res.writeHead(status, { "content-type": "text/plain" }).end(String(status));
  }
}

export interface CallbackBench {
  db: TestDatabase;
  prisma: PrismaClient;
  redis: TestRedisPrefix;
  queues: Queues;
  config: SvcConfig;
  receiver: CallbackReceiver;
  deps: SendCallbackDeps;
  logs: { level: string; message: string; meta?: Record<string, unknown> }[];
  /** A BullMQ worker on the `callbacks` queue (closed by close()). */
  startWorker(concurrency?: number): Worker;
  /** Records the callback of a decision as a decision's transaction does; returns its id. */
  decide(body?: Partial<DecisionCallbackBody>, options?: { enqueue?: boolean }): Promise<string>;
  close(): Promise<void>;
}

let serial = 0;

export async function startCallbackBench(
  name: string,
  overrides: Partial<SendCallbackDeps> = {},
): Promise<CallbackBench> {
  const db = await createTestDatabase(name);
  const redis = testRedisPrefix(name);
  const receiver = new CallbackReceiver();
  await receiver.start();
  const config = parseConfig(
    {
      database: { url: db.databaseUrl },
      redis: { url: redis.redisUrl, prefix: redis.prefix },
      approvals: { callback_url: receiver.url },
    },
    { SVC_CALLBACK_SECRET: CALLBACK_SECRET },
  );
  const queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  const logs: CallbackBench["logs"] = [];
  const log = (level: string) => (message: string, meta?: Record<string, unknown>) =>
    void logs.push({ level, message, meta });
  const logger = { info: log("info"), warn: log("warn"), error: log("error") };
  const deps: SendCallbackDeps = {
    prisma: db.prisma,
    config,
    queues,
    logger,
    now: () => new Date(),
    retryBaseMs: 20,
    ...overrides,
  };
  const workers: Worker[] = [];
  return {
    db,
    prisma: db.prisma,
    redis,
    queues,
    config,
    receiver,
    deps,
    logs,
    startWorker(concurrency = 1) {
      const worker = createWorker({
        queue: "callbacks",
        prefix: redis.prefix,
        redisUrl: redis.redisUrl,
        concurrency,
        processor: dispatchTo("callbacks", { "send-callback": sendCallbackJob(deps) }),
      });
      workers.push(worker);
      return worker;
    },
    async decide(body = {}, options = {}) {
      serial += 1;
      const full: DecisionCallbackBody = {
        type: "approval.decided",
        kind: "action",
        id: `apr_TEST${serial}`,
        status: "approved",
        title: "Refund order 1001",
        agent: "support-bot",
        decided_by: "link:ann",
        comment: "fine by me",
        decided_at: new Date().toISOString(),
        metadata: { order: 1001, note: "zürich ✓" },
        ...body,
      };
      const id = await $transaction(db.prisma, (tx) =>
        recordDecisionCallback(tx, { config, now: () => new Date() }, full),
      );
      if (id === null) throw new Error("no callback recorded");
      // After the commit, as a decision does (unless the test plays a crash before the enqueue).
      if (options.enqueue ?? true) await queues.enqueueBulk([callbackJob(id)]);
      return id;
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await queues.close();
      await receiver.close();
      await redis.cleanup();
      await db.drop();
    },
  };
}
