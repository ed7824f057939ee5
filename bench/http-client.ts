/**
 * CPU per outbound POST for the HTTP clients svc could use: `npm run bench:http-client`.
 * A local server in a child process (so only the client's work is measured) answers each POST
 * with `200 {}`; BENCH_REQUESTS (4,000) POSTs of a webhook-sized JSON body, BENCH_CONCURRENCY (16)
 * at a time, per client and round, BENCH_ROUNDS (3) rounds in turn; the client process's CPU time
 * (user + system) per request, medians over the rounds. Clients: Node's `fetch`, svc's
 * `postWithDeadline` (undici's `request`, docs/decisions.md "HTTP client"), and `node:http` with a
 * keep-alive agent.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import { cpus, loadavg } from "node:os";
import { postWithDeadline } from "@svc/providers";
import { fmt, writeSection } from "./lib/results";
import { median } from "./lib/wrk";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const SERVER = `
const server = require("node:http").createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
});
server.listen(0, "127.0.0.1", () => process.send(server.address().port));
process.on("disconnect", () => process.exit(0));
`;

async function main(): Promise<void> {
  const server = spawn(process.execPath, ["-e", SERVER], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const port = await new Promise<number>((resolve) => server.once("message", (m) => resolve(Number(m))));
  const url = `http://127.0.0.1:${port}/hook`;
  const body = JSON.stringify({
    id: "msg_01JB2Z5X0000000000000000",
    channel: "hook",
    to: "hook-1",
    content: { title: "Your order shipped", body: "It is on its way. ".repeat(10) },
    data: { order: 1234 },
  });
  const headers = {
    "Content-Type": "application/json",
    "Idempotency-Key": "msg_01JB2Z5X0000000000000000",
    "Svc-Signature": `t=1700000000,v1=${"a".repeat(64)}`,
  };
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });
  const clients: Record<string, () => Promise<void>> = {
    fetch: async () => {
      const response = await fetch(url, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(10_000),
        redirect: "manual",
      });
      await response.text();
    },
    "postWithDeadline (undici request)": async () => {
      await postWithDeadline({ url, headers, body, timeoutMs: 10_000 });
    },
    "node:http, keep-alive agent": () =>
      new Promise<void>((resolve, reject) => {
        const request = http.request(url, { method: "POST", headers, agent, timeout: 10_000 }, (res) => {
          res.resume();
          res.on("end", () => resolve());
        });
        request.on("error", reject);
        request.end(body);
      }),
  };
  const perRequest: Record<string, number[]> = Object.fromEntries(Object.keys(clients).map((k) => [k, []]));
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [name, post] of Object.entries(clients)) {
      let next = 0;
      const cpu = process.cpuUsage();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next++ < REQUESTS) await post();
        }),
      );
      const used = process.cpuUsage(cpu);
      // Round 0 warms every client up (connections, JIT) and is not counted.
      if (round > 0) perRequest[name]!.push((used.user + used.system) / REQUESTS);
    }
  }
  server.disconnect();
  agent.destroy();
  const rows = Object.entries(perRequest).map(
    ([name, values]) => `| ${name} | ${fmt(median(values))} | ${values.map((v) => fmt(v)).join(", ")} |`,
  );
  const section = [
    "## HTTP client: CPU per outbound POST (`npm run bench:http-client`)",
    "",
    `${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")} at the end. ${fmt(REQUESTS)} POSTs per client and round, ${CONCURRENCY} at a time,`,
    `to a local server in another process; ${ROUNDS} rounds after a warm-up round, client process CPU only.`,
    "",
    "| Client | µs of CPU per request (median) | rounds |",
    "|---|---|---|",
    ...rows,
  ].join("\n");
  console.log(section);
  if (process.env.BENCH_WRITE !== "0") writeSection("http-client", section);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
