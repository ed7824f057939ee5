import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface WrkOptions {
  url: string;
  connections: number;
  seconds: number;
  threads?: number;
  /** Lua for wrk: sets method, headers and a body per request. */
  script?: string;
}

export interface WrkResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
}

/** A POST of a JSON body built per request by `bodyLua` (a Lua expression using `counter`). */
export function postJsonScript(headers: Record<string, string>, bodyLua: string): string {
  const headerLines = Object.entries({ "Content-Type": "application/json", ...headers })
    .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join("\n");
  return `
wrk.method = "POST"
${headerLines}
counter = 0
request = function()
  counter = counter + 1
  return wrk.format(nil, nil, nil, ${bodyLua})
end
done = function(summary, latency, requests)
  io.write(string.format("P50 %f\\nP99 %f\\n", latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
`;
}

function parseDuration(value: string): number {
  const match = /([\d.]+)(us|ms|s)/.exec(value);
  if (!match) return NaN;
  const n = Number(match[1]);
  return match[2] === "us" ? n / 1000 : match[2] === "ms" ? n : n * 1000;
}

/** Runs wrk (Debian package `wrk`) and reads requests per second and latency percentiles. */
export async function wrk(options: WrkOptions): Promise<WrkResult> {
  const args = [
    "-t",
    String(options.threads ?? 2),
    "-c",
    String(options.connections),
    "-d",
    `${options.seconds}s`,
    "--latency",
  ];
  if (options.script) {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "svc-bench-")), "script.lua");
    writeFileSync(file, options.script);
    args.push("-s", file);
  }
  args.push(options.url);
  const { stdout } = await run("wrk", args, { maxBuffer: 10 * 1024 * 1024 });
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(stdout);
  const p50 = /P50 ([\d.]+)/.exec(stdout);
  const p99 = /P99 ([\d.]+)/.exec(stdout);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  return {
    requestsPerSecond: rps ? Number(rps[1]) : NaN,
    latencyP50Ms: p50 ? Number(p50[1]) : parseDuration(/50%\s+(\S+)/.exec(stdout)?.[1] ?? ""),
    latencyP99Ms: p99 ? Number(p99[1]) : parseDuration(/99%\s+(\S+)/.exec(stdout)?.[1] ?? ""),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    errors: socketErrors ? socketErrors.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
  };
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
