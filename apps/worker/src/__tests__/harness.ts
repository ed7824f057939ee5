import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { Client } from "pg";
import { createTestDatabase, deleteKeysStartingWith, waitFor as poll } from "@svc/testkit";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export function scratchName(label: string): string {
  return `${label}_${randomBytes(4).toString("hex")}`;
}

/** An empty test database (`svc_test_queue_<random>`, testkit) with the effect tables; its URL and a dropper. */
export async function createScratchDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const db = await createTestDatabase("queue", { migrate: false });
  const client = new Client({ connectionString: db.databaseUrl });
  await client.connect();
  await client.query(`CREATE TABLE effects (job_id text PRIMARY KEY, worker text NOT NULL)`);
  await client.query(`CREATE TABLE done (job_id text PRIMARY KEY)`);
  await client.end();
  return { url: db.databaseUrl, drop: () => db.drop() };
}

export async function dropPrefix(prefix: string): Promise<void> {
  await deleteKeysStartingWith(REDIS_URL, `${prefix}:`);
}

export interface ChildWorker {
  process: ChildProcess;
  lines: string[];
  /** Resolves with the first stdout line matching, already printed or still to come. */
  line(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const REGISTER = path.join(__dirname, "../../../../scripts/register-ts.cjs");

export function startEffectWorker(env: Record<string, string>): ChildWorker {
  return startFixture("effect-worker.ts", env);
}

/** Runs `fixtures/<name>` (TypeScript, from source) as a child process with `env` added. */
export function startFixture(name: string, env: Record<string, string>): ChildWorker {
  const child = spawn(process.execPath, ["-r", REGISTER, path.join(__dirname, "fixtures", name)], {
    env: { ...process.env, REDIS_URL, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  let buffered = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    const parts = buffered.split("\n");
    buffered = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.pattern.test(line))) waiter.resolve(line);
    }
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    process: child,
    lines,
    exited,
    line(pattern, timeoutMs = 15_000) {
      const seen = lines.find((line) => pattern.test(line));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `no line ${pattern} within ${timeoutMs} ms; stdout ${JSON.stringify(lines)}; stderr ${stderr}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({
          pattern,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      });
    },
  };
}

/** Kills a still-running child (a failed test must not leave workers behind). */
/**
 * A fixture started with START_ON_SIGNAL waits, loaded, for SIGUSR2: start its workers now and
 * resolve once they run (so a test kills a worker mid-work, not mid-start).
 */
export async function startWarmWorker(worker: ChildWorker): Promise<void> {
  await worker.line(/^loaded$/, 60_000);
  worker.process.kill("SIGUSR2");
  await worker.line(/^ready$/, 30_000);
}

export async function stopChild(worker: ChildWorker | undefined): Promise<void> {
  if (!worker || worker.process.exitCode !== null || worker.process.signalCode !== null) return;
  worker.process.kill("SIGKILL");
  await worker.exited;
}

/** Polls until `probe` returns something other than undefined or false (testkit's waitFor). */
export function waitFor<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  return poll(probe, { timeoutMs, intervalMs: 50 }) as Promise<T>;
}
