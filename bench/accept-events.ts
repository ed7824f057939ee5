/**
 * Accepted `POST /v1/events` per second with 32 concurrent clients, beside two references run in the
 * same session: a bare Express app doing one Postgres INSERT + one BullMQ add per request, and a
 * bare Express app doing no I/O. Workers are stopped (worker.embedded false) so the accept path
 * alone is measured; the rate limit is off. Run: `npm run build && npm run bench:accept`.
 */
import { randomBytes } from "node:crypto";
import { cpus } from "node:os";
import path from "node:path";
import { Pool } from "pg";
import { dropDatabase, ensureDatabase, withDatabaseName } from "@svc/store";
import { EVENT_BODY, eventPostScript } from "./lib/event-posts";
import { startAcceptApi, startNode, stop } from "./lib/processes";
import { fmt, writeSection } from "./lib/results";
import { median, postJsonScript, wrk } from "./lib/wrk";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 32;
const SERVER = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

async function main() {
  const tag = randomBytes(3).toString("hex");
  const svcDb = withDatabaseName(SERVER, `svc_bench_accept_${tag}`);
  const bareDb = withDatabaseName(SERVER, `svc_bench_bare_${tag}`);
  await ensureDatabase(bareDb);
  const ports = { noio: 18101, bare: 18102, svc: 18103 };

  const svc = await startAcceptApi({
    databaseUrl: svcDb,
    redisUrl: REDIS_URL,
    port: ports.svc,
    prefix: `svc-bench-${tag}`,
    // BENCH_API_PROCESSES=2: svc as a supervisor of two API processes (api.processes).
    env: { SVC__API__PROCESSES: process.env.BENCH_API_PROCESSES ?? "1" },
  });
  const svcScript = await eventPostScript(svcDb, "bench");
  const noio = await startNode(
    path.join(__dirname, "reference/bare-apps.js"),
    ["noio", String(ports.noio)],
    {},
    `http://127.0.0.1:${ports.noio}/ready`,
  );
  const bare = await startNode(
    path.join(__dirname, "reference/bare-apps.js"),
    ["insert-add", String(ports.bare), bareDb, REDIS_URL, `svc-bench-bare-${tag}`],
    {},
    `http://127.0.0.1:${ports.bare}/ready`,
  );

  const targets = {
    noio: { url: `http://127.0.0.1:${ports.noio}/events`, script: postJsonScript({}, EVENT_BODY) },
    bare: { url: `http://127.0.0.1:${ports.bare}/events`, script: postJsonScript({}, EVENT_BODY) },
    svc: { url: `http://127.0.0.1:${ports.svc}/v1/events`, script: svcScript },
  };
  const results: Record<keyof typeof targets, number[]> = { noio: [], bare: [], svc: [] };
  let perBatch = 0;
  const p99: Record<keyof typeof targets, number[]> = { noio: [], bare: [], svc: [] };
  try {
    for (const name of Object.keys(targets) as (keyof typeof targets)[]) {
      await wrk({ ...targets[name], connections: CONNECTIONS, seconds: 2 }); // warm-up
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of Object.keys(targets) as (keyof typeof targets)[]) {
        const r = await wrk({ ...targets[name], connections: CONNECTIONS, seconds: SECONDS });
        if (r.non2xx > 0 || r.errors > 0)
          console.warn(`${name}: ${r.non2xx} non-2xx, ${r.errors} socket errors`);
        results[name].push(r.requestsPerSecond);
        p99[name].push(r.latencyP99Ms);
        console.log(
          `round ${round + 1} ${name}: ${fmt(r.requestsPerSecond)} req/s, p50 ${fmt(r.latencyP50Ms, 1)} ms, p99 ${fmt(r.latencyP99Ms, 1)} ms`,
        );
      }
    }
    // Rows one INSERT wrote share its transaction id: the mean group-commit batch under this load
    // (what the compose and drain benchmarks enqueue as one ingest job, BENCH_ACCEPT_BATCH).
    perBatch = await meanBatchSize(svcDb);
  } finally {
    await Promise.all([stop(svc), stop(noio), stop(bare)]);
    await dropDatabase(svcDb);
    await dropDatabase(bareDb);
  }
  const m = { noio: median(results.noio), bare: median(results.bare), svc: median(results.svc) };
  const target = Math.max(m.bare, 0.75 * m.noio);
  const table = `
## Accept path: \`POST /v1/events\`

${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), wrk with ${CONNECTIONS} connections,
${ROUNDS} rounds of ${SECONDS} s each, medians. One API key, rate limit off, workers stopped (accept path only).
svc wrote ${fmt(perBatch, 1)} events per group commit on average (one INSERT and one ingest job each).

| Server | Requests/s (median) | p99 latency (median) | svc ratio |
|---|---|---|---|
| svc \`POST /v1/events\` (auth, validation, idempotency, INSERT, enqueue) | ${fmt(m.svc)} | ${fmt(median(p99.svc), 1)} ms | 1.00 |
| bare Express: one INSERT + one BullMQ add | ${fmt(m.bare)} | ${fmt(median(p99.bare), 1)} ms | ${fmt(m.svc / m.bare, 2)} |
| bare Express: no I/O | ${fmt(m.noio)} | ${fmt(median(p99.noio), 1)} ms | ${fmt(m.svc / m.noio, 2)} |

Target: svc ≥ max(1.0 × bare INSERT+add, 0.75 × no-I/O) = ${fmt(target)} req/s: **${m.svc >= target ? "met" : "not met"}**
(svc/bare = ${fmt(m.svc / m.bare, 2)}, svc/no-I/O = ${fmt(m.svc / m.noio, 2)}).
`;
  console.log(table);
  if (process.env.BENCH_WRITE !== "0") writeSection("accept-events", table);
}

async function meanBatchSize(databaseUrl: string): Promise<number> {
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const { rows } = await pool.query<{ per_batch: number }>(
      "SELECT count(*)::float8 / greatest(count(DISTINCT xmin::text), 1) AS per_batch FROM events",
    );
    return rows[0]!.per_batch;
  } finally {
    await pool.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
