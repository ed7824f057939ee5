import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

// Servers a test starts for itself (a Redis Cluster, a Sentinel group, PgBouncer) on spare ports,
// never the shared ones: each is a child process this module can kill, restart and stop.

/** A port nobody listens on now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * `count` free ports below 55536 whose port + 10000 is free too: a Redis Cluster node listens on
 * both (the second is its cluster bus).
 */
export async function freeClusterPorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let tries = 0; ports.length < count && tries < 1000; tries++) {
    const port = 20000 + Math.floor(Math.random() * 35000);
    if (ports.includes(port) || ports.includes(port + 10000) || ports.includes(port - 10000)) continue;
    if ((await isFree(port)) && (await isFree(port + 10000))) ports.push(port);
  }
  if (ports.length < count) throw new Error(`found only ${ports.length} of ${count} free cluster ports`);
  return ports;
}

export interface OwnProcess {
  readonly name: string;
  readonly running: boolean;
  /** The running process's id (undefined before the first start). */
  readonly pid: number | undefined;
  /** SIGKILL: what a crash or an OOM kill does. */
  kill(): Promise<void>;
  /** Starts it again with the same arguments. */
  start(): Promise<void>;
}

/** A child process that can be killed and started again; its output is kept for errors. */
export function ownProcess(
  name: string,
  command: string,
  args: readonly string[],
  options: SpawnOptions = {},
): OwnProcess {
  let child: ChildProcess | undefined;
  let output = "";
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  return {
    name,
    get running() {
      return running();
    },
    get pid() {
      return child?.pid;
    },
    async kill() {
      const current = child;
      if (!current || !running()) return;
      const exited = new Promise((resolve) => current.once("exit", resolve));
      current.kill("SIGKILL");
      await exited;
    },
    async start() {
      if (running()) return;
      output = "";
      const started = spawn(command, [...args], { stdio: ["ignore", "pipe", "pipe"], ...options });
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-4000);
      };
      started.stdout?.on("data", keep);
      started.stderr?.on("data", keep);
      started.once("error", (error) => {
        output += `\n${error.message}`;
      });
      child = started;
      await sleep(20);
      if (!running() && started.exitCode !== 0)
        throw new Error(`${name} (${command}) exited at start: ${output.trim()}`);
    },
  };
}

/** Polls `ready` until it resolves true, or throws naming `what` after `timeoutMs`. */
export async function until(what: string, ready: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not ready within ${timeoutMs / 1000} s`);
    await sleep(100);
  }
}
