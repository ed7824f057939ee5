import { spawn, type ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";

/** Starts a Node process and waits until `readyUrl` answers 200. */
export async function startNode(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  readyUrl: string,
  nodeArgs: string[] = [],
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
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
