import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Starts a Node process and waits until `readyUrl` answers 200. */
export async function startNode(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  readyUrl: string,
  nodeArgs: string[] = [],
  nodeBinary: string = process.execPath,
): Promise<ChildProcess> {
  const child = spawn(nodeBinary, [...nodeArgs, script, ...args], {
    env: { ...process.env, ...env },
    // BENCH_CHILD_STDERR=inherit shows the child's stderr live (for temporary instrumentation).
    stdio: ["ignore", "ignore", process.env.BENCH_CHILD_STDERR === "inherit" ? "inherit" : "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => (stderr += chunk));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}: ${stderr}`);
    const ok = await fetch(readyUrl).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return child;
    await sleep(200);
  }
  child.kill("SIGKILL");
  throw new Error(`${script} did not become ready: ${stderr}`);
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await Promise.race([exited, sleep(10_000).then(() => child.kill("SIGKILL"))]);
}

export interface AcceptApiOptions {
  databaseUrl: string;
  redisUrl: string;
  port: number;
  /** Redis key prefix of this run. */
  prefix: string;
  /** More settings for the API process (they win over the defaults below). */
  env?: NodeJS.ProcessEnv;
  nodeArgs?: string[];
  /** Another build's API entry point (a checkout of an earlier commit, for A/B runs). */
  main?: string;
  /** Another node binary (another Node version, for A/B runs). */
  nodeBinary?: string;
}

/**
 * Starts the built API (apps/api/dist/main.js) as the accept benchmarks measure it: workers not
 * embedded (the accept path alone), rate limit off, logs at warn. Resolves once /readyz answers.
 */
export function startAcceptApi(options: AcceptApiOptions): Promise<ChildProcess> {
  return startNode(
    options.main ?? path.resolve(__dirname, "../../apps/api/dist/main.js"),
    [],
    {
      DATABASE_URL: options.databaseUrl,
      REDIS_URL: options.redisUrl,
      PORT: String(options.port),
      SVC_SECRET_KEY: randomBytes(32).toString("base64"),
      SVC__WORKER__EMBEDDED: "false",
      SVC__API__RATE_LIMIT__ENABLED: "false",
      SVC__REDIS__PREFIX: options.prefix,
      SVC__LOG__LEVEL: "warn",
      ...options.env,
    },
    `http://127.0.0.1:${options.port}/readyz`,
    options.nodeArgs,
    options.nodeBinary,
  );
}

/** User + system CPU seconds a Linux process and its children (api.processes > 1) have used so far. */
export function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const own = (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime (USER_HZ 100)
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" ").filter(Boolean);
  return own + children.reduce((sum, child) => sum + cpuSecondsOf(Number(child)), 0);
}

/** CPU seconds used so far by every process with this command name (all Postgres backends). */
export function cpuSecondsOfCommand(command: string): number {
  let total = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) !== command) continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // The process ended meanwhile.
    }
  }
  return total;
}

/**
 * CPU seconds used by the processes named `command` whose command line holds `lineIncludes` (the
 * Postgres backends of one database: `postgres: <user> <database> …`), sampled every `everyMs` so
 * that a backend which starts and ends between two readings still counts. Backends of other
 * databases (other work on a shared server) and Postgres's own background processes do not.
 */
export class CpuSampler {
  private readonly seen = new Map<number, { first: number; last: number }>();
  private readonly timer: NodeJS.Timeout;
  private started = false;

  constructor(
    private readonly command: string,
    private readonly lineIncludes: string,
    private readonly lineExcludes: string[] = [],
    everyMs = 100,
  ) {
    this.sample();
    this.started = true;
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  /** CPU seconds since the sampler started. */
  total(): number {
    this.sample();
    let sum = 0;
    for (const { first, last } of this.seen.values()) sum += last - first;
    return sum;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sample(): void {
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
        if (stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) !== this.command) continue;
        const line = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        if (!line.includes(this.lineIncludes) || this.lineExcludes.some((x) => line.includes(x))) continue;
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const cpu = (Number(fields[11]) + Number(fields[12])) / 100;
        const entry = this.seen.get(Number(pid));
        // A backend first seen after the start began after it: all its time counts.
        if (entry) entry.last = cpu;
        else this.seen.set(Number(pid), { first: this.started ? 0 : cpu, last: cpu });
      } catch {
        // The process ended meanwhile.
      }
    }
  }
}

/** Starts a Node process with these arguments; its stderr is passed through to ours. */
export function startChild(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr!.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  return child;
}

/** Stops every child still running (SIGTERM, then SIGKILL after 10 s), all at once. */
export async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(children.filter((child) => child.signalCode === null).map(stop));
}

/** Polls `probe` every `pollMs` until it holds; throws after `timeoutMs`. */
export async function until(
  probe: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  pollMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(pollMs);
  }
}
