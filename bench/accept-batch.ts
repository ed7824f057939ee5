/**
 * Events accepted per second through `POST /v1/events/batch` (8 clients, 500 events per request),
 * then the drain: how fast the accepted events become `sent` messages once workers start.
 * Run: `npm run build && npm run bench:accept-batch`.
 *
 * - Accept: the built API (workers not embedded, rate limit off) and wrk with BENCH_CLIENTS (8)
 *   connections, each request a batch of BENCH_BATCH (500) events for one of 1,000 recipients;
 *   a 2 s warm-up, then BENCH_SECONDS (5). BENCH_KEYS=1 gives every event an idempotency key.
 * - Drain (BENCH_DRAIN=0 skips it): one rule sends each event on a `console` channel; after the
 *   accept phase BENCH_WORKERS (2) worker processes start, and the drain rate is every accepted
 *   event's message `sent` over the time from their start to the last `sent_at`.
 * - BENCH_CPU_PROF=<dir>: the API runs with --cpu-prof; its self time by package is printed.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "pg";
import { createApiKey } from "@svc/engine";
import { createPrisma, dropDatabase, migrate, withDatabaseName } from "@svc/store";
import { summarizeProfile } from "./lib/cpu-profile";
import { benchRecipients, insertRecipients } from "./lib/bench-recipients";
import { cpuSecondsOf, cpuSecondsOfCommand, startAcceptApi, startChild, stop } from "./lib/processes";
import { fmt, writeSection } from "./lib/results";
import { wrk } from "./lib/wrk";

const ROOT = path.resolve(__dirname, "..");
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const BATCH = Number(process.env.BENCH_BATCH ?? 500);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const KEYS = process.env.BENCH_KEYS === "1";
const DRAIN = process.env.BENCH_DRAIN !== "0";
const RECIPIENTS = 1000;
const TARGET = 25_000;
const SERVER = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const REGISTER = path.join(ROOT, "scripts/register-ts.cjs");

/** wrk Lua: each request a batch of BATCH events; keys (BENCH_KEYS) unique per wrk thread. */
function batchScript(key: string, run: string): string {
  return `
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer ${key}"
local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
counter = 0
request = function()
  local parts = {}
  for i = 1, ${BATCH} do
    counter = counter + 1
    local idem = ""
    if ${KEYS ? "true" : "false"} then idem = ',"idempotency_key":"${run}-' .. tid .. '-' .. counter .. '"' end
    parts[i] = '{"name":"bench.batch","recipient":"bench-' .. (counter % ${RECIPIENTS}) .. '","data":{"order":' .. counter .. '}' .. idem .. '}'
  end
  return wrk.format(nil, nil, nil, '{"events":[' .. table.concat(parts, ",") .. ']}')
end
done = function(summary, latency, requests)
  io.write(string.format("P50 %f\\nP99 %f\\n", latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
`;
}

async function setUp(pool: Pool): Promise<void> {
  await pool.query(`INSERT INTO templates (key, locales, updated_at) VALUES ('bench', $1, now())`, [
    JSON.stringify({ en: { title: "Order {{ data.order }}", body: "Order {{ data.order }} shipped." } }),
  ]);
  await pool.query(
    `INSERT INTO rules (key, event, template, category, channels, updated_at)
     VALUES ('bench-batch', 'bench.batch', 'bench', 'transactional', ARRAY['push'], now())`,
  );
  await insertRecipients(pool, benchRecipients(RECIPIENTS));
}

async function count(pool: Pool, sql: string): Promise<number> {
  return (await pool.query<{ n: number }>(sql)).rows[0]!.n;
}

function startWorker(configFile: string, secretKey: string): ChildProcess {
  return startChild(
    [
      "-r",
      REGISTER,
      path.join(ROOT, "apps/worker/src/main.ts"),
      "--config",
      configFile,
      "--queues",
      "ingest,policy,delivery,scheduler",
    ],
    { SVC_SECRET_KEY: secretKey },
  );
}

async function drain(pool: Pool, databaseUrl: string, prefix: string, accepted: number) {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-accept-batch-"));
  const configFile = path.join(dir, "svc.yaml");
  writeFileSync(
    configFile,
    JSON.stringify({
      database: { url: databaseUrl, auto_migrate: false },
      redis: { url: REDIS_URL, prefix },
      channels: { push: { provider: "console" } },
      log: { level: "warn" },
    }),
  );
  const startedAt = Date.now();
  const secretKey = randomBytes(32).toString("base64");
  const workers = Array.from({ length: WORKERS }, () => startWorker(configFile, secretKey));
  const deadline = startedAt + 120_000 + accepted; // 1 ms per message beyond two minutes
  let sent = 0;
  try {
    while (
      (sent = await count(pool, `SELECT count(*)::int AS n FROM messages WHERE status = 'sent'`)) < accepted
    ) {
      if (Date.now() > deadline) break;
      await sleep(500);
    }
  } finally {
    await Promise.all(workers.map((w) => stop(w)));
  }
  const { rows } = await pool.query<{ last: Date | null; others: number; pending: number }>(
    `SELECT (SELECT max(sent_at) FROM messages) AS last,
            (SELECT count(*)::int FROM messages WHERE status <> 'sent') AS others,
            (SELECT count(*)::int FROM events WHERE status <> 'processed') AS pending`,
  );
  const last = rows[0]!.last?.getTime() ?? Date.now();
  return {
    sent,
    others: rows[0]!.others,
    pendingEvents: rows[0]!.pending,
    perSecond: (1000 * sent) / Math.max(1, last - startedAt),
  };
}

async function main() {
  const tag = randomBytes(3).toString("hex");
  const databaseUrl = withDatabaseName(SERVER, `svc_bench_batch_${tag}`);
  await migrate({
    databaseUrl,
    migrationsDir: path.join(ROOT, "prisma/migrations"),
    createDatabase: true,
  });
  const pool = new Pool({ connectionString: databaseUrl, max: 2 });
  await setUp(pool);
  const prisma = createPrisma({ databaseUrl });
  const { key } = await createApiKey(
    { prisma, now: () => new Date() },
    { name: "bench", scopes: ["events:write"] },
  );
  await prisma.$disconnect();

  const profileDir = process.env.BENCH_CPU_PROF;
  const prefix = `svc-bench-batch-${tag}`;
  const port = 18111;
  const api = await startAcceptApi({
    databaseUrl,
    redisUrl: REDIS_URL,
    port,
    prefix,
    env: { SVC__API__MAX_BODY_BYTES: String(1024 * 1024) },
    nodeArgs: profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
  });
  const url = `http://127.0.0.1:${port}/v1/events/batch`;
  const loadBefore = loadavg()[0]!;
  let result: Awaited<ReturnType<typeof wrk>>;
  let cpuPerEventUs = 0;
  let postgresPerEventUs = 0;
  let accepted = 0;
  try {
    await wrk({ url, script: batchScript(key, "warm"), connections: CLIENTS, seconds: 2 });
    const before = await count(pool, "SELECT count(*)::int AS n FROM events");
    const cpuBefore = cpuSecondsOf(api.pid!);
    const postgresBefore = cpuSecondsOfCommand("postgres");
    result = await wrk({ url, script: batchScript(key, "run"), connections: CLIENTS, seconds: SECONDS });
    const cpu = cpuSecondsOf(api.pid!) - cpuBefore;
    const postgresCpu = cpuSecondsOfCommand("postgres") - postgresBefore;
    accepted = await count(pool, "SELECT count(*)::int AS n FROM events");
    cpuPerEventUs = (1e6 * cpu) / Math.max(1, accepted - before);
    // Every Postgres process of the machine: other work on the box adds to it.
    postgresPerEventUs = (1e6 * postgresCpu) / Math.max(1, accepted - before);
    // Every item of every answered request must be stored (wrk cannot read the 207's results).
    const answered = Math.round(result.requestsPerSecond * SECONDS) * BATCH;
    console.log(`stored ${fmt(accepted - before)} events in the run; wrk counted ~${fmt(answered)} answered`);
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} socket errors`);
  } finally {
    await stop(api);
  }
  accepted = await count(pool, "SELECT count(*)::int AS n FROM events"); // with requests still in flight then
  const loadAfter = loadavg()[0]!;
  const eventsPerSecond = result.requestsPerSecond * BATCH;
  console.log(
    `accept: ${fmt(eventsPerSecond)} events/s (${fmt(result.requestsPerSecond, 1)} requests/s), p50 ${fmt(result.latencyP50Ms, 1)} ms, p99 ${fmt(result.latencyP99Ms, 1)} ms, API CPU ${fmt(cpuPerEventUs, 1)} µs and Postgres CPU ${fmt(postgresPerEventUs, 1)} µs per event`,
  );
  if (profileDir) {
    const file = readdirSync(profileDir).find((f) => f.endsWith(".cpuprofile"));
    if (file) console.log(summarizeProfile(path.join(profileDir, file), 30, SECONDS));
  }

  let drained: Awaited<ReturnType<typeof drain>> | null = null;
  if (DRAIN) {
    console.log(`drain: ${fmt(accepted)} events with ${WORKERS} worker processes...`);
    drained = await drain(pool, databaseUrl, prefix, accepted);
    console.log(
      `drain: ${fmt(drained.sent)} sent at ${fmt(drained.perSecond)} messages/s; ${drained.others} messages not sent, ${drained.pendingEvents} events not processed`,
    );
  }
  await pool.end();
  await dropDatabase(databaseUrl);

  const table = `
## Batch accept: \`POST /v1/events/batch\`

${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), load average ${fmt(loadBefore, 2)} before
and ${fmt(loadAfter, 2)} after the accept phase. wrk with ${CLIENTS} connections, ${BATCH} events per request${KEYS ? " (each with an idempotency key)" : ""},
${SECONDS} s after a 2 s warm-up; API with workers stopped, rate limit off. \`npm run build && npm run bench:accept-batch\`.

| Measure | Value |
|---|---|
| Events accepted per second | ${fmt(eventsPerSecond)} (${fmt(result.requestsPerSecond, 1)} requests/s) |
| Request latency p50 / p99 | ${fmt(result.latencyP50Ms, 1)} ms / ${fmt(result.latencyP99Ms, 1)} ms |
| API CPU per accepted event | ${fmt(cpuPerEventUs, 1)} µs |
| Postgres CPU per accepted event (every backend on the box) | ${fmt(postgresPerEventUs, 1)} µs |
${drained ? `| Drain afterwards (${WORKERS} worker processes), events → \`sent\` | ${fmt(drained.perSecond)} messages/s; ${fmt(drained.sent)} of ${fmt(accepted)} sent, ${drained.others} not sent |\n` : ""}
Target: ≥ ${fmt(TARGET)} events/s accepted: **${eventsPerSecond >= TARGET ? "met" : "not met"}**.
`;
  console.log(table);
  if (process.env.BENCH_WRITE !== "0") writeSection("accept-batch", table);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
