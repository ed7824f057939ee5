import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { waitFor } from "./wait-for";

// svc's own processes for tests that kill or span them (an API and separate workers): each
// entry point run from source, as `node -r scripts/register-ts.cjs apps/…/main.ts` does, with
// their output gathered for the failure messages.

const ROOT = path.resolve(__dirname, "../../..");

export class SourceProcesses {
  /** Everything the processes wrote, stdout and stderr. */
  output = "";
  private readonly children: ChildProcess[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** Starts `entry` (relative to the repository) with the group's environment plus `extra`. */
  start(entry: string, extra: Record<string, string> = {}): ChildProcess {
    const child = spawn(
      process.execPath,
      ["-r", path.join(ROOT, "scripts/register-ts.cjs"), path.join(ROOT, entry)],
      { cwd: ROOT, env: { ...this.env, ...extra }, stdio: ["ignore", "pipe", "pipe"] },
    );
    child.stdout!.on("data", (chunk) => (this.output += chunk));
    child.stderr!.on("data", (chunk) => (this.output += chunk));
    this.children.push(child);
    return child;
  }

  /** Waits until `url` answers 200 (a probe or metrics port), at most a minute. */
  answers(url: string): Promise<unknown> {
    return waitFor(async () => (await fetch(url).catch(() => null))?.status === 200 || null, {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: `${url} answering (output so far: ${this.output.slice(-500)})`,
    });
  }

  /** SIGKILL for every process still running. */
  killAll(): void {
    for (const child of this.children) child.kill("SIGKILL");
  }
}
