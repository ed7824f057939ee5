// A delivery test bench: a real database and Redis prefix, providers from real configuration
// (`webhook` channels pointed at a local HTTP server whose answers each test scripts per address),
// and a real BullMQ worker running the `deliver-message` handler.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { parseConfig, type SvcConfig } from "@svc/config";
import { newId } from "@svc/core";
import { createProviders } from "@svc/providers";
import { createQueues, createWorker, dispatchTo, type Queues } from "@svc/queue";
import { Prisma, type MessageRow, type PrismaClient } from "@svc/store";
import { createTestDatabase, testRedisPrefix, type TestDatabase, type TestRedisPrefix } from "@svc/testkit";
import type { Worker } from "bullmq";
import { deliverMessageJob, deliverMessagesJob } from "../deliver-message-job";
import type { DeliveryDeps } from "../../shared/delivery-types";

export const HOOK_SECRET = "delivery-test-hook-secret";

/** What the webhook server received, in order. */
export interface Received {
  path: string;
  to: string;
  body: Record<string, unknown>;
  idempotencyKey: string | undefined;
}

/** Scripted answers per address: each request takes the next status (the last one repeats). */
export class HookServer {
  readonly received: Received[] = [];
  private scripts = new Map<string, number[]>();
  private delays = new Map<string, number>();
  private server: Server = createServer((req, res) => void this.handle(req, res));
  url = "";

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  script(to: string, statuses: number[]): void {
    this.scripts.set(to, [...statuses]);
  }

  /** Answers requests for `to` only after `ms` (a slow provider). */
  slow(to: string, ms: number): void {
    this.delays.set(to, ms);
  }

  to(address: string): Received[] {
    return this.received.filter((r) => r.to === address);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: import("node:http").ServerResponse) {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw) as Record<string, unknown>;
    const to = String(body.to);
    this.received.push({
      path: req.url ?? "",
      to,
      body,
      idempotencyKey: req.headers["idempotency-key"] as string | undefined,
    });
    const script = this.scripts.get(to) ?? [200];
    const status = script.length > 1 ? script.shift()! : script[0]!;
    const delay = this.delays.get(to);
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    res.writeHead(status, { "content-type": "application/json" }).end("{}");
  }
}

export interface Bench {
  db: TestDatabase;
  prisma: PrismaClient;
  redis: TestRedisPrefix;
  queues: Queues;
  hooks: HookServer;
  config: SvcConfig;
  deps: DeliveryDeps;
  /** Console provider output lines. */
  consoleLines: string[];
  startWorker(): Worker;
  close(): Promise<void>;
}

export async function startBench(name: string, worker: Record<string, unknown> = {}): Promise<Bench> {
  const db = await createTestDatabase(name);
  const redis = testRedisPrefix(name);
  const hooks = new HookServer();
  await hooks.start();
  const config = parseConfig(
    {
      database: { url: db.databaseUrl },
      redis: { url: redis.redisUrl, prefix: redis.prefix },
      worker: { max_attempts: 3, lease_seconds: 60, ...worker },
      api: { public_url: "https://svc.example" },
      channels: {
        sms: { provider: "webhook", url: `${hooks.url}/sms`, secret_env: "HOOK_SECRET" },
        email: { provider: "webhook", url: `${hooks.url}/email`, secret_env: "HOOK_SECRET" },
        push: { provider: "console" },
      },
    },
    { SVC_SECRET_KEY: "k".repeat(48) },
  );
  const queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix, maxAttempts: 3 });
  const consoleLines: string[] = [];
  const now = () => new Date();
  const providers = createProviders(config.channels, {
    env: { HOOK_SECRET },
    now,
    stream: { write: (line: string) => consoleLines.push(line) },
  });
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const job = deliverMessageJob({
    prisma: db.prisma,
    config,
    queues,
    logger: quiet,
    now,
    providers,
    retryBaseMs: 20,
  });
  const deps: DeliveryDeps = {
    prisma: db.prisma,
    config,
    queues,
    logger: quiet,
    now,
    providers,
    retryBaseMs: 20,
    links: async () => ({
      preferences_url: null,
      unsubscribe_url: null,
      one_click_url: null,
      tracking_token: null,
      review_url: null,
    }),
    screen: async () => ({ action: "send" }),
  };
  const workers: Worker[] = [];
  return {
    db,
    prisma: db.prisma,
    redis,
    queues,
    hooks,
    config,
    deps,
    consoleLines,
    startWorker() {
      const w = createWorker({
        queue: "delivery",
        processor: dispatchTo("delivery", {
          "deliver-message": job,
          "deliver-messages": deliverMessagesJob(job),
        }),
        redisUrl: redis.redisUrl,
        prefix: redis.prefix,
        concurrency: 5,
      });
      workers.push(w);
      return w;
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await queues.close();
      await hooks.close();
      await db.drop();
      await redis.cleanup();
    },
  };
}

let counter = 0;

export async function makePerson(
  prisma: PrismaClient,
  addresses: { channel: string; value: string; enabled?: boolean }[],
  extra: { unsubscribed_categories?: string[]; muted_channels?: string[] } = {},
) {
  return prisma.recipient.create({
    data: {
      id: newId("recipient"),
      external_id: `person-${++counter}-${Math.random().toString(36).slice(2, 7)}`,
      ...extra,
      addresses: {
        create: addresses.map((a) => ({ channel: a.channel, value: a.value, enabled: a.enabled ?? true })),
      },
    },
  });
}

export interface QueuedInput {
  channels: string[];
  category?: string;
  agent_key?: string | null;
  send_at?: Date;
  expires_at?: Date | null;
  status?: "queued" | "sending";
  lease_until?: Date | null;
  content?: Record<string, unknown>;
}

/** A message as composition leaves it: queued, content rendered with link placeholders. */
export async function queuedMessage(
  prisma: PrismaClient,
  person: { id: string; external_id: string },
  input: QueuedInput,
): Promise<MessageRow> {
  return prisma.message.create({
    data: {
      id: newId("message"),
      status: input.status ?? "queued",
      recipient_id: person.id,
      recipient_external_id: person.external_id,
      sender: input.agent_key ?? "backend",
      agent_key: input.agent_key ?? null,
      category: input.category ?? "transactional",
      template: "tpl",
      importance: "normal",
      claimed_importance: "normal",
      channels: input.channels,
      content: (input.content ?? {
        title: "Hello",
        body: "Body",
        url: null,
        thread: null,
        locale: "en",
        channel: input.channels[0],
      }) as Prisma.InputJsonValue,
      send_at: input.send_at ?? new Date(Date.now() - 1000),
      expires_at: input.expires_at ?? null,
      lease_until: input.lease_until ?? null,
      link_nonce: "nonce-for-tests",
    },
  });
}

export async function attemptsOf(prisma: PrismaClient, messageId: string) {
  const rows = await prisma.deliveryAttempt.findMany({
    where: { message_id: messageId },
    orderBy: [{ at: "asc" }, { id: "asc" }],
  });
  return rows.map((r) => ({
    channel: r.channel,
    provider: r.provider,
    address: r.address,
    ok: r.ok,
    retryable: r.retryable,
    error: r.error,
  }));
}
