import { randomBytes } from "node:crypto";
import { createServer, connect, type Server, type Socket } from "node:net";
import { parseConfig } from "@svc/config";
import { newId, newLinkNonce } from "@svc/core";
import { createNoticeBus, createRedisClient, type NoticeBus, type RedisClient } from "@svc/queue";
import {
  createTestDatabase,
  testRedisPrefix,
  waitFor,
  type TestDatabase,
  type TestRedisPrefix,
} from "@svc/testkit";
import { relayOutboxOnce } from "../../outbox/relay-outbox";
import { inboxStore } from "../inbox-delivery";
import { createInboxStreams, type InboxStreams } from "../inbox-streams";
import type { InboxPerson } from "../inbox-tokens";

// The streams of one process (docs/inbox.md "The stream") against the real Postgres and Redis,
// where the HTTP tests cannot reach: a notice lost while the subscriber's connection was down is
// made good by the resync when it comes back; a catch-up longer than one round goes on until done;
// a client that stops reading is let go.

let db: TestDatabase;
let redis: TestRedisPrefix;
let publisher: NoticeBus;
let kicker: RedisClient;
const config = parseConfig(
  { channels: { in_app: { provider: "inbox" } }, inbox: { heartbeat_seconds: 25 } },
  { SVC_SECRET_KEY: randomBytes(32).toString("base64url") },
);
const logger = { warn: () => undefined };
const now = () => new Date();

// Redis through a TCP proxy that the test can cut and restore, so the subscriber really loses its
// connection (and the notices published meanwhile) and then gets it back.
class Proxy {
  private server: Server | null = null;
  private sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly upstream: URL) {}
  async start(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(Number(this.upstream.port || 6379), this.upstream.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve));
    this.port = (this.server.address() as { port: number }).port;
  }
  async cut(): Promise<void> {
    const closed = new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(null)));
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

beforeAll(async () => {
  db = await createTestDatabase("inbox_streams");
  redis = testRedisPrefix("inbox_streams");
  publisher = createNoticeBus({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  kicker = createRedisClient({ mode: "single", url: redis.redisUrl });
  store = inboxStore({ prisma: db.prisma, queues: { redis: kicker, prefix: redis.prefix }, now });
});
afterAll(async () => {
  await publisher.close();
  kicker.disconnect();
  await redis.cleanup();
  await db.drop();
});

async function personWithMessages(count: number): Promise<{ person: InboxPerson; messages: string[] }> {
  const id = newId("recipient");
  const externalId = `p-${id}`;
  await db.prisma.recipient.create({ data: { id, external_id: externalId } });
  const nonce = newLinkNonce();
  await db.prisma.preferenceToken.create({
    data: { recipient_id: id, nonce, token_hash: randomBytes(32).toString("hex") },
  });
  const messages = Array.from({ length: count }, () => newId("message"));
  await db.prisma.message.createMany({
    data: messages.map((messageId, i) => ({
      id: messageId,
      status: "sending" as const,
      recipient_id: id,
      recipient_external_id: externalId,
      sender: "backend",
      category: "transactional",
      importance: "normal" as const,
      claimed_importance: "normal" as const,
      channels: ["in_app"],
      content: { title: `Item ${i + 1}`, body: "", url: null, thread: null, locale: "en", channel: "in_app" },
      send_at: new Date(),
      link_nonce: newLinkNonce(),
    })),
  });
  return {
    person: { recipientId: id, externalId, nonce, expiresAt: new Date(Date.now() + 3_600_000) },
    messages,
  };
}

let store: ReturnType<typeof inboxStore>;
const deliver = (messageId: string) =>
  store.deliver({ messageId, channel: "in_app" } as Parameters<typeof store.deliver>[0]);
const relay = () => relayOutboxOnce({ prisma: db.prisma, notices: publisher, consumers: [] }, 1_000);

interface Sink {
  chunks: string[];
  events(): { id: string | undefined; event: string; data: Record<string, unknown> }[];
  ended: boolean;
  accept: boolean;
  write(chunk: string): boolean;
  end(): void;
}

function sink(): Sink {
  const s: Sink = {
    chunks: [],
    ended: false,
    accept: true,
    events: () =>
      s.chunks
        .filter((c) => c.includes("event:"))
        .map((c) => ({
          id: /^id: (\d+)$/m.exec(c)?.[1],
          event: /^event: (\w+)$/m.exec(c)![1]!,
          data: JSON.parse(/^data: (.*)$/m.exec(c)![1]!) as Record<string, unknown>,
        })),
    write(chunk) {
      s.chunks.push(chunk);
      return s.accept;
    },
    end() {
      s.ended = true;
    },
  };
  return s;
}

function streamsOn(notices: NoticeBus): InboxStreams {
  return createInboxStreams({ prisma: db.prisma, config, notices, logger, now });
}

it("makes good a notice lost while the subscriber was away (resync reads Postgres)", async () => {
  const proxy = new Proxy(new URL(redis.redisUrl));
  await proxy.start();
  const notices = createNoticeBus({ redisUrl: `redis://127.0.0.1:${proxy.port}`, prefix: redis.prefix });
  const streams = streamsOn(notices);
  try {
    const { person, messages } = await personWithMessages(2);
    const out = sink();
    await streams.open(person, null, out);
    await waitFor(() => out.events().some((e) => e.event === "counts"), { what: "first counts" });

    await deliver(messages[0]!);
    await relay();
    await waitFor(() => out.events().some((e) => e.event === "item"), { what: "the first item, live" });

    await proxy.cut(); // the subscriber is gone, and cannot come back yet
    await deliver(messages[1]!);
    await relay(); // published while nobody of this process listens: lost
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(out.events().filter((e) => e.event === "item")).toHaveLength(1);

    await proxy.start(); // back: the subscriber reconnects, and the resync reads what it missed
    const second = await waitFor(
      () => out.events().find((e) => e.event === "item" && e.data.message_id === messages[1]),
      {
        timeoutMs: 10_000,
        what: "the missed item after the resync",
      },
    );
    expect(second.data.title).toBe("Item 2");
    expect(out.events().filter((e) => e.event === "item")).toHaveLength(2);
  } finally {
    await streams.close();
    await notices.close();
    await proxy.cut();
  }
}, 30_000);

it("catches up on more changes than one round holds, in order, each once", async () => {
  const streams = streamsOn(publisher);
  try {
    const { person, messages } = await personWithMessages(250);
    await Promise.all(messages.map(deliver)); // batched: many items in one transaction
    await relay();
    const out = sink();
    await streams.open(person, 0n, out);
    await waitFor(() => out.events().filter((e) => e.event === "item").length === 250, {
      timeoutMs: 15_000,
      what: "250 items",
    });
    const items = out.events().filter((e) => e.event === "item");
    expect(items.map((e) => e.data.message_id)).toEqual(messages);
    const ids = items.map((e) => BigInt(e.id!));
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
    const last = out.events().at(-1)!;
    expect(last).toMatchObject({
      event: "counts",
      id: items.at(-1)!.id,
      data: { unread: 250, unseen: 250, total: 250 },
    });
  } finally {
    await streams.close();
  }
}, 60_000);

it("lets go of a client that stops reading, and of every stream on close", async () => {
  const streams = streamsOn(publisher);
  const { person, messages } = await personWithMessages(1);
  const slow = sink();
  slow.accept = false; // its buffer is over the bound
  await streams.open(person, null, slow);
  await waitFor(() => slow.ended, { what: "the slow stream ended" });
  expect(streams.size()).toBe(0);

  const kept = sink();
  await streams.open(person, null, kept);
  await deliver(messages[0]!);
  await relay();
  await waitFor(() => kept.events().some((e) => e.event === "item"));
  await streams.close();
  expect(kept.ended).toBe(true);
  expect(streams.size()).toBe(0);
  await expect(streams.open(person, null, sink())).rejects.toMatchObject({ status: 503 });
});
