import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "@svc/testkit";

// svc's own entry points (API with or without embedded workers, worker processes) run from the
// working tree as child processes, configured by one YAML file, as an operator would run them.

const ROOT = path.resolve(__dirname, "../../..");
const REGISTER = path.join(ROOT, "scripts/register-ts.cjs");
const API_MAIN = path.join(ROOT, "apps/api/src/main.ts");
const WORKER_MAIN = path.join(ROOT, "apps/worker/src/main.ts");
const HOOK_SECRET = "faults-hook-secret";
const SECRET_KEY = "f".repeat(48);

/** Settings that make recovery quick enough for a test; the defaults are asserted separately. */
export interface FaultRunSettings {
  lease_seconds: number;
  sweep_seconds: number;
  lock_ms: number;
}

export interface SvcEnvironment {
  /** The `database` section (url, and pool_mode and direct_url behind a pooler). */
  database: Record<string, unknown>;
  /** The `redis` section without the prefix (url, cluster or sentinel). */
  redis: Record<string, unknown>;
  prefix: string;
  sinkUrl: string;
  settings: FaultRunSettings;
}

/** A warning an svc process logged, by its message and the message id it concerns. */
interface LoggedWarning {
  message: string;
  message_id?: string;
  /** For an unexpected failure of a request (`request failed`, level error): the error's name and message. */
  error?: string;
}

export interface SvcProcess {
  name: string;
  child: ChildProcess;
  /** Whether this run SIGKILLed it (a fault, not the clean-up at the end). */
  killed: boolean;
  /** The warnings it logged so far. */
  warnings: LoggedWarning[];
  /** The API's base URL (API processes only). */
  url?: string;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export { freePort };

/** The configuration file every process of one run reads; `extra` sections are merged in. */
export function writeConfig(env: SvcEnvironment, extra: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-faults-"));
  const file = path.join(dir, "svc.yaml");
  writeFileSync(
    file,
    JSON.stringify({
      database: { ...env.database, auto_migrate: false },
      redis: { ...env.redis, prefix: env.prefix },
      worker: { ...env.settings },
      log: { level: "error" },
      channels: { hook: { provider: "webhook", url: env.sinkUrl, secret_env: "HOOK_SECRET" } },
      ...extra,
    }),
  );
  return file;
}

function spawnTs(
  name: string,
  main: string,
  args: string[],
  configFile: string,
  extraEnv: NodeJS.ProcessEnv,
  preload: readonly string[] = [],
): ChildProcess {
  const child = spawn(
    process.execPath,
    [...preload.flatMap((m) => ["-r", m]), "-r", REGISTER, main, ...args],
    {
      env: {
        PATH: process.env.PATH,
        SVC_CONFIG: configFile,
        SVC_SECRET_KEY: SECRET_KEY,
        HOOK_SECRET,
        // Each process posts to the sink under its own name, so a repeat shows who sent it.
        SVC__CHANNELS__HOOK__URL: `${sinkUrlOf(configFile)}?from=${encodeURIComponent(name)}`,
        // Warnings are read back (lease taken over, lease lost after sending); FAULTS_LOG_DIR keeps
        // each process's lines at FAULTS_LOG_LEVEL (default info) in a file of its own.
        SVC__LOG__LEVEL: process.env.FAULTS_LOG_DIR ? (process.env.FAULTS_LOG_LEVEL ?? "info") : "warn",
        ...extraEnv,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  (child as ChildProcess & { stderrTail: () => string }).stderrTail = () => stderr;
  child.on("exit", (code, signal) => {
    if (code !== 0 && signal === null && process.env.FAULTS_VERBOSE)
      console.error(`${name} exited ${code}: ${stderr}`);
  });
  return child;
}

function sinkUrlOf(configFile: string): string {
  return (JSON.parse(readFileSync(configFile, "utf8")) as { channels: { hook: { url: string } } }).channels
    .hook.url;
}

/** Collects the process's warnings from its JSON log lines (and keeps the lines under FAULTS_LOG_DIR). */
function readWarnings(name: string, child: ChildProcess): LoggedWarning[] {
  const warnings: LoggedWarning[] = [];
  const file = process.env.FAULTS_LOG_DIR
    ? path.join(process.env.FAULTS_LOG_DIR, `${name}-${Date.now()}.log`)
    : null;
  let partial = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    if (file) appendFileSync(file, chunk);
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("{")) continue;
      try {
        const entry = JSON.parse(line) as {
          level?: string;
          message?: string;
          message_id?: string;
          error?: unknown;
        };
        if (entry.level === "warn" && entry.message)
          warnings.push({ message: entry.message, message_id: entry.message_id });
        // A 500's cause, so a fault run that answered one can say which error it was.
        if (entry.level === "error" && entry.message === "request failed")
          warnings.push({ message: entry.message, error: loggedError(entry.error) });
      } catch {
        // Not a log line of svc's.
      }
    }
  });
  return warnings;
}

/** An error as svc's logger writes it (`{name, message, stack}`), in one line. */
function loggedError(error: unknown): string {
  if (typeof error !== "object" || error === null) return String(error);
  const { name, message } = error as { name?: unknown; message?: unknown };
  return `${String(name ?? "Error")}: ${String(message ?? "")
    .replace(/\s+/g, " ")
    .slice(0, 300)}`;
}

function handle(name: string, child: ChildProcess, url?: string): SvcProcess {
  const warnings = readWarnings(name, child);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  const proc: SvcProcess = {
    name,
    child,
    url,
    killed: false,
    warnings,
    async kill() {
      if (running()) {
        proc.killed = true;
        child.kill("SIGKILL");
      }
      await exited;
    },
    async stop() {
      if (running()) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return proc;
}

/** An API process (`worker.embedded` on: the all-in-one `npm start`); resolves once /readyz answers. */
export async function startApi(
  name: string,
  configFile: string,
  options: { embedded: boolean; env?: NodeJS.ProcessEnv },
): Promise<SvcProcess> {
  const port = await freePort();
  const child = spawnTs(name, API_MAIN, [], configFile, {
    ...options.env,
    PORT: String(port),
    SVC__WORKER__EMBEDDED: String(options.embedded),
  });
  const url = `http://127.0.0.1:${port}`;
  await until(child, name, async () => (await fetch(`${url}/readyz`).catch(() => null))?.ok === true);
  return handle(name, child, url);
}

/** A worker process serving `queues`; resolves once it started (its metrics listener answers). */
export async function startWorker(
  name: string,
  configFile: string,
  queues: string[],
  options: { env?: NodeJS.ProcessEnv; preload?: readonly string[] } = {},
): Promise<SvcProcess> {
  const port = await freePort();
  const child = spawnTs(
    name,
    WORKER_MAIN,
    ["--queues", queues.join(",")],
    configFile,
    { ...options.env, SVC__WORKER__METRICS_PORT: String(port) },
    options.preload,
  );
  await until(
    child,
    name,
    async () => (await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => null))?.ok === true,
  );
  return handle(name, child);
}

async function until(child: ChildProcess, name: string, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      const tail = (child as ChildProcess & { stderrTail?: () => string }).stderrTail?.() ?? "";
      throw new Error(`${name} exited with ${child.exitCode}: ${tail}`);
    }
    if (await ready()) return;
    await sleep(100);
  }
  child.kill("SIGKILL");
  throw new Error(`${name} did not become ready within 60 s`);
}
