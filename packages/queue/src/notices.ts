import { createRedisClient, topologyOf, type RedisClient, type RedisTarget } from "./connection";

// Notices between processes over Redis pub/sub, on every topology (docs/scaling.md "Notices"):
// a key revoked in one API process, an approval decided, an inbox item for a person's open
// streams. A notice is a hint, never the record: Postgres holds the state, and a listener that may
// have missed notices (its connection dropped) is told to resync by `onResync`.
//
// Classic PUBLISH/SUBSCRIBE: on a Redis Cluster a PUBLISH reaches subscribers on every node, and
// ioredis moves its one subscriber connection to another node (subscriptions included) when its
// node fails.

export type NoticeListener = (message: string) => void;

export interface NoticeBus {
  /** `<redis.prefix>:<name>`: channels of one deployment never meet another's. */
  channel(name: string): string;
  /** Publishes on a channel made by `channel()`; rejects when Redis cannot be reached. */
  publish(channel: string, message: string): Promise<void>;
  /** Listens on a channel until the returned function is called (one Redis subscription per channel). */
  subscribe(channel: string, listener: NoticeListener): Promise<() => Promise<void>>;
  /** Called when notices may have been missed (the subscriber reconnected): re-read the state. */
  onResync(listener: () => void): () => void;
  close(): Promise<void>;
}

export interface CreateNoticeBusOptions extends RedisTarget {
  prefix: string;
  /** Publish on this client (a producer connection); the bus makes its own otherwise. */
  publisher?: RedisClient;
}

export function createNoticeBus(options: CreateNoticeBusOptions): NoticeBus {
  const topology = topologyOf(options);
  const ownPublisher = options.publisher
    ? null
    : createRedisClient(topology, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: 2_000,
      });
  ownPublisher?.on("error", () => undefined);
  const publisher = options.publisher ?? ownPublisher!;
  let subscriber: RedisClient | null = null;
  const listeners = new Map<string, Set<NoticeListener>>();
  const resyncListeners = new Set<() => void>();
  const resync = () => resyncListeners.forEach((listener) => listener());

  const subscriberClient = (): RedisClient => {
    if (subscriber) return subscriber;
    const client = createRedisClient(topology, { maxRetriesPerRequest: null, connectTimeout: 2_000 });
    client.on("error", () => undefined); // reconnects on its own; resync tells listeners
    let connectedOnce = false;
    client.on("ready", () => {
      if (connectedOnce) resync();
      connectedOnce = true;
    });
    client.on("-node", () => resync()); // a cluster node left: its subscriber may have moved
    client.on("message", (channel: string, message: string) => {
      for (const listener of listeners.get(channel) ?? []) listener(message);
    });
    subscriber = client;
    return client;
  };

  return {
    channel: (name) => `${options.prefix}:${name}`,
    async publish(channel, message) {
      await publisher.publish(channel, message);
    },
    async subscribe(channel, listener) {
      const client = subscriberClient();
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
        await client.subscribe(channel).catch((error: unknown) => {
          listeners.delete(channel);
          throw error;
        });
      }
      set.add(listener);
      return async () => {
        const current = listeners.get(channel);
        if (!current?.delete(listener) || current.size > 0) return;
        listeners.delete(channel);
        await client.unsubscribe(channel).catch(() => undefined);
      };
    },
    onResync(listener) {
      resyncListeners.add(listener);
      return () => resyncListeners.delete(listener);
    },
    async close() {
      listeners.clear();
      resyncListeners.clear();
      subscriber?.disconnect();
      if (ownPublisher) await ownPublisher.quit().catch(() => ownPublisher.disconnect());
    },
  };
}
