import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";

// A Redis of the fault run's own on a spare port (never the shared one): killed and restarted
// empty, or restarted from its append-only file.

export interface OwnRedis {
  url: string;
  port: number;
  /** The running server's process id. */
  readonly pid: number | undefined;
  /** SIGKILL: no shutdown save, what a crash or an OOM kill does. */
  kill(): Promise<void>;
  /** Starts again on the same port: from the AOF when it runs with one, else empty. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startOwnRedis(port: number, options: { appendonly: boolean }): Promise<OwnRedis> {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-faults-redis-"));
  let child: ChildProcess | undefined;
  const url = `redis://127.0.0.1:${port}`;
  const start = async () => {
    child = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        options.appendonly ? "yes" : "no",
        "--appendfsync",
        "everysec",
        "--dir",
        dir,
      ],
      { stdio: "ignore" },
    );
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on("error", () => undefined);
    try {
      for (let i = 0; i < 100; i++) {
        const ok = await probe
          .connect()
          .then(() => probe.ping())
          .then(
            () => true,
            () => false,
          );
        if (ok) return;
        probe.disconnect();
        await sleep(50);
      }
      throw new Error(`redis-server on port ${port} did not start`);
    } finally {
      probe.disconnect();
    }
  };
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  await start();
  return {
    url,
    port,
    get pid() {
      return child?.pid;
    },
    kill,
    start,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
