import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { freePort, ownProcess, until, type OwnProcess } from "./process-group";

// A Redis Sentinel group of the test's own: one primary, `replicas` replicas and `sentinels`
// sentinels (quorum: a majority) watching it as `name`. Killing the primary makes the sentinels
// promote a replica after `downAfterMs`.

interface SentinelGroupNode {
  port: number;
  url: string;
  process: OwnProcess;
}

export interface OwnSentinelGroup {
  name: string;
  /** The sentinels' `redis://127.0.0.1:<port>` (for `redis.sentinel.nodes`). */
  sentinels: string[];
  servers: SentinelGroupNode[];
  /** The server the sentinels name as primary now. */
  primary(): Promise<SentinelGroupNode>;
  /** SIGKILLs the primary and waits until the sentinels name another; returns the killed one. */
  killPrimary(): Promise<SentinelGroupNode>;
  stop(): Promise<void>;
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

export async function startSentinelGroup(
  options: { name?: string; replicas?: number; sentinels?: number; downAfterMs?: number } = {},
): Promise<OwnSentinelGroup> {
  const name = options.name ?? "svcprimary";
  const downAfterMs = options.downAfterMs ?? 1_000;
  const dir = mkdtempSync(path.join(tmpdir(), "svc-redis-sentinel-"));
  const serverPorts = [await freePort()];
  for (let i = 0; i < (options.replicas ?? 1); i++) serverPorts.push(await freePort());
  const primaryPort = serverPorts[0]!;
  const servers: SentinelGroupNode[] = serverPorts.map((port, i) => ({
    port,
    url: `redis://127.0.0.1:${port}`,
    process: ownProcess(`redis-${port}`, "redis-server", [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
      ...(i === 0 ? [] : ["--replicaof", "127.0.0.1", String(primaryPort)]),
    ]),
  }));
  const sentinelPorts: number[] = [];
  for (let i = 0; i < (options.sentinels ?? 3); i++) sentinelPorts.push(await freePort());
  const sentinels = sentinelPorts.map((port) => {
    const file = path.join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      file,
      [
        `port ${port}`,
        "bind 127.0.0.1",
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${primaryPort} ${Math.floor(sentinelPorts.length / 2) + 1}`,
        `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
        `sentinel failover-timeout ${name} 10000`,
        `sentinel parallel-syncs ${name} 1`,
        "",
      ].join("\n"),
    );
    return { port, process: ownProcess(`sentinel-${port}`, "redis-server", [file, "--sentinel"]) };
  });
  const stop = async () => {
    await Promise.all([...servers, ...sentinels].map((s) => s.process.kill()));
    rmSync(dir, { recursive: true, force: true });
  };
  const primaryPortNow = () =>
    ask(sentinels.find((s) => s.process.running)!.port, async (r) => {
      const [, port] = (await r.call("SENTINEL", "get-master-addr-by-name", name)) as [string, string];
      return Number(port);
    });
  try {
    await Promise.all(servers.map((s) => s.process.start()));
    await until("replicas in sync", async () =>
      (
        await Promise.all(
          servers
            .slice(1)
            .map((s) => ask(s.port, async (r) => /master_link_status:up/.test(await r.info("replication")))),
        )
      ).every(Boolean),
    );
    await Promise.all(sentinels.map((s) => s.process.start()));
    await until("sentinels watching", async () =>
      (
        await Promise.all(
          sentinels.map((s) =>
            ask(s.port, async (r) => {
              const replicas = (await r.call("SENTINEL", "replicas", name)) as unknown[];
              const others = (await r.call("SENTINEL", "sentinels", name)) as unknown[];
              return replicas.length === servers.length - 1 && others.length === sentinels.length - 1;
            }),
          ),
        )
      ).every(Boolean),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const byPort = (port: number) => servers.find((s) => s.port === port)!;
  return {
    name,
    sentinels: sentinels.map((s) => `redis://127.0.0.1:${s.port}`),
    servers,
    primary: async () => byPort(await primaryPortNow()),
    async killPrimary() {
      const old = byPort(await primaryPortNow());
      await old.process.kill();
      await until(
        "sentinels promote a replica",
        async () => {
          const port = await primaryPortNow();
          if (port === old.port) return false;
          return ask(port, async (r) => /role:master/.test(await r.info("replication")));
        },
        downAfterMs * 10 + 20_000,
      );
      return old;
    },
    stop,
  };
}
