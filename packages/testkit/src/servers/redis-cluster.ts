import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import Redis from "ioredis";
import { freeClusterPorts, ownProcess, until, type OwnProcess } from "./process-group";

const run = promisify(execFile);

// A Redis Cluster of the test's own (Debian's redis-server in cluster mode): `primaries` primaries
// with `replicasPerPrimary` replicas each, made with `redis-cli --cluster create`, nothing kept on
// disk. A node's death is noticed after `nodeTimeoutMs`, then its replica is promoted.

export interface RedisClusterNode {
  port: number;
  url: string;
  process: OwnProcess;
}

export interface OwnRedisCluster {
  /** Every node's `redis://127.0.0.1:<port>` (seeds for `redis.cluster.nodes`). */
  nodes: string[];
  members: RedisClusterNode[];
  /** The hash slot of `key` (CLUSTER KEYSLOT, asked of a live node). */
  slotOf(key: string): Promise<number>;
  /** The node serving `slot` as primary now (asks a live node). */
  primaryOf(slot: number): Promise<RedisClusterNode>;
  /** The primaries now, as the cluster reports them. */
  primaries(): Promise<RedisClusterNode[]>;
  /** Resolves once every live node reports `cluster_state:ok` and every slot has a live primary. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** SIGKILLs the primary of `slot` and waits for its replica to take over; returns the killed node. */
  killPrimaryOf(slot: number, options?: { waitForFailover?: boolean }): Promise<RedisClusterNode>;
  stop(): Promise<void>;
}

export interface StartRedisClusterOptions {
  primaries?: number;
  replicasPerPrimary?: number;
  nodeTimeoutMs?: number;
}

async function ask<T>(port: number, work: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({
    port,
    host: "127.0.0.1",
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    return await work(redis);
  } finally {
    redis.disconnect();
  }
}

export async function startRedisCluster(options: StartRedisClusterOptions = {}): Promise<OwnRedisCluster> {
  const primaryCount = options.primaries ?? 3;
  const replicas = options.replicasPerPrimary ?? 1;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 2_000;
  const ports = await freeClusterPorts(primaryCount * (1 + replicas));
  const dir = mkdtempSync(path.join(tmpdir(), "svc-redis-cluster-"));
  const members: RedisClusterNode[] = ports.map((port) => {
    const nodeDir = path.join(dir, String(port));
    mkdirSync(nodeDir);
    const process = ownProcess(`redis-cluster-${port}`, "redis-server", [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--cluster-enabled",
      "yes",
      "--cluster-config-file",
      path.join(nodeDir, "nodes.conf"),
      "--cluster-node-timeout",
      String(nodeTimeoutMs),
      // A replica may always take over, however long ago it last heard its primary.
      "--cluster-replica-validity-factor",
      "0",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      nodeDir,
    ]);
    return { port, url: `redis://127.0.0.1:${port}`, process };
  });
  const stop = async () => {
    await Promise.all(members.map((m) => m.process.kill()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.all(members.map((m) => m.process.start()));
    await Promise.all(
      members.map((m) =>
        until(`redis node ${m.port}`, () => ask(m.port, async (r) => (await r.ping()) === "PONG")),
      ),
    );
    await run("redis-cli", [
      "--cluster",
      "create",
      ...members.map((m) => `127.0.0.1:${m.port}`),
      "--cluster-replicas",
      String(replicas),
      "--cluster-yes",
    ]);
  } catch (error) {
    await stop();
    throw error;
  }

  const live = () => members.filter((m) => m.process.running);
  const byPort = (port: number) => members.find((m) => m.port === port)!;
  const slotsOf = async () => {
    for (const member of live()) {
      const slots = await ask(
        member.port,
        (r) => r.cluster("SLOTS") as unknown as Promise<[number, number, [string, number]][]>,
      ).catch(() => null);
      if (slots) return slots;
    }
    throw new Error("no live cluster node answers CLUSTER SLOTS");
  };
  const cluster: OwnRedisCluster = {
    nodes: members.map((m) => m.url),
    members,
    async slotOf(key) {
      const member = live()[0];
      if (!member) throw new Error("no live cluster node");
      return ask(member.port, (r) => r.cluster("KEYSLOT", key) as Promise<number>);
    },
    async primaryOf(slot) {
      const range = (await slotsOf()).find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`slot ${slot} has no primary`);
      return byPort(range[2][1]);
    },
    async primaries() {
      return [...new Set((await slotsOf()).map((range) => range[2][1]))].map(byPort);
    },
    async waitHealthy(timeoutMs = 30_000) {
      await until(
        "redis cluster healthy",
        async () => {
          const states = await Promise.all(
            live().map((m) => ask(m.port, (r) => r.cluster("INFO") as Promise<string>)),
          );
          if (!states.every((info) => /cluster_state:ok/.test(info))) return false;
          const primaries = await cluster.primaries();
          return primaries.every((p) => p.process.running);
        },
        timeoutMs,
      );
    },
    async killPrimaryOf(slot, { waitForFailover = true } = {}) {
      const primary = await cluster.primaryOf(slot);
      await primary.process.kill();
      if (waitForFailover) {
        await until(
          `a replica promoted for slot ${slot}`,
          async () => (await cluster.primaryOf(slot)).port !== primary.port,
          nodeTimeoutMs * 10 + 10_000,
        );
        await cluster.waitHealthy();
      }
      return primary;
    },
    stop,
  };
  await cluster.waitHealthy(60_000);
  return cluster;
}
