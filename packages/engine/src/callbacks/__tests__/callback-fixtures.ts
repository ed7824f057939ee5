// A callback test bench: a real database, Redis prefix and BullMQ worker running `send-callback`,
// and a callback receiver (@svc/testkit) that checks `Svc-Signature` with its own code.
import { parseConfig, type SvcConfig } from "@svc/config";
import { createQueues, createWorker, dispatchTo, type Queues } from "@svc/queue";
import { $transaction, type PrismaClient } from "@svc/store";
import {
  CallbackReceiver,
  createTestDatabase,
  testRedisPrefix,
  type TestDatabase,
  type TestRedisPrefix,
} from "@svc/testkit";
import type { Worker } from "bullmq";
import { callbackJob, recordDecisionCallback, type DecisionCallbackBody } from "../../shared/record-callback";
import { sendCallbackJob, type SendCallbackDeps } from "../send-callback";

export const CALLBACK_SECRET = "callback-test-secret-0123456789";

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
  const receiver = await new CallbackReceiver(CALLBACK_SECRET).start();
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
