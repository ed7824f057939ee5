/**
 * Events → `sent` through the engine's workers, beside a bare chain of three BullMQ queues (with
 * and without one Postgres UPDATE per step), all in one session. Run: `npm run bench:drain`.
 *
 * - Events enter by direct insert of `pending` rows plus their ingest jobs, one per BENCH_ACCEPT_BATCH
 *   events (one bulk round trip each), the shape the accept path's group commit leaves, so the accept path is not what is measured.
 * - One rule sends every event on a `console` channel (stdout of the worker goes to /dev/null) to a
 *   recipient with an address; 1,000 recipients, events spread over them.
 * - Workers are child processes (`apps/worker/src/main.ts` from source, all queues, default
 *   concurrency), BENCH_WORKERS of them (default 2); the bare chain runs as many processes.
 * - burst: N events at once, messages/s = N / (last sent - first insert). paced: events at half the
 *   burst rate for BENCH_PACED_SECONDS; event-to-sent latency p50/p99 come from this phase.
 * - delivery only: messages due 1 s after their event (so not inline) wait in the paused delivery
 *   queue until ingest queued every one, then it is resumed:
 *   queued → sent per second (the delivery stage alone).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFileSync, mkdtempSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "pg";
import { Queue } from "bullmq";
import { newId } from "@svc/core";
import { createQueues, type Queues } from "@svc/queue";
import { ACCEPT_BATCH, acceptShapedJobs } from "./lib/accept-shaped-jobs";
import { benchDatabases } from "./lib/bench-databases";
import { fmt, writeSection } from "./lib/results";
import { median } from "./lib/wrk";

const ROOT = path.resolve(__dirname, "..");
const N = Number(process.env.BENCH_MESSAGES ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 5);
const RECIPIENTS = 1000;
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const REGISTER = path.join(ROOT, "scripts/register-ts.cjs");

interface Run {
  perSecond: number;
  p50: number;
  p99: number;
}

function startChild(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr!.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  return child;
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(10_000).then(() => child.kill("SIGKILL"))]);
    }),
  );
}

async function until(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

// ---- svc -------------------------------------------------------------------------------------

async function setUpSvc(pool: Pool): Promise<void> {
  await pool.query(`INSERT INTO templates (key, locales, updated_at) VALUES ('bench', $1, now())`, [
    JSON.stringify({
      en: {
        title: "Order {{ data.order }}",
        body: "Hello {{ recipient.external_id }}, order {{ data.order }} shipped.",
      },
    }),
  ]);
  await pool.query(
    `INSERT INTO rules (key, event, template, category, channels, condition, digest, updated_at)
     VALUES ('bench-drain', 'bench.drain', 'bench', 'transactional', ARRAY['push'], NULL, NULL, now())`,
  );
  // For the delivery-only phase: due a second later, so every message waits in the delivery queue.
  await pool.query(
    `INSERT INTO rules (key, event, template, category, channels, condition, digest, delay_seconds, updated_at)
     VALUES ('bench-drain-later', 'bench.later', 'bench', 'transactional', ARRAY['push'], NULL, NULL, 1, now())`,
  );
  const ids = Array.from({ length: RECIPIENTS }, (_, i) => ({
    id: newId("recipient"),
    external: `bench-${i}`,
  }));
  await pool.query(
    `INSERT INTO recipients (id, external_id, updated_at) SELECT *, now() FROM unnest($1::text[], $2::text[])`,
    [ids.map((r) => r.id), ids.map((r) => r.external)],
  );
  await pool.query(
    `INSERT INTO addresses (recipient_id, channel, value) SELECT r, 'push', 'device-' || r FROM unnest($1::text[]) AS r`,
    [ids.map((r) => r.id)],
  );
}

let eventCounter = 0;
async function insertEvents(pool: Pool, queues: Queues, count: number, name = "bench.drain"): Promise<void> {
  const rows = Array.from({ length: count }, () => {
    const n = eventCounter++;
    return { id: newId("event"), recipient: `bench-${n % RECIPIENTS}`, data: JSON.stringify({ order: n }) };
  });
  await pool.query(
    `INSERT INTO events (id, name, source, sender, recipient_external_id, data, created_at)
     SELECT id, $4, 'api', 'backend', r, d::jsonb, clock_timestamp() FROM unnest($1::text[], $2::text[], $3::text[]) AS t(id, r, d)`,
    [rows.map((r) => r.id), rows.map((r) => r.recipient), rows.map((r) => r.data), name],
  );
  await queues.enqueueBulk(acceptShapedJobs(rows.map((r) => r.id)));
}

async function sentCount(pool: Pool, since: Date): Promise<number> {
  const { rows } = await pool.query(
    `SELECT count(*)::int AS n FROM messages WHERE status IN ('sent', 'delivered') AND created_at >= $1`,
    [since],
  );
  return rows[0].n as number;
}

async function svcStats(
  pool: Pool,
  since: Date,
  from: "event" | "queued",
  startedAt?: Date,
): Promise<Run & { failed: number }> {
  const { rows } = await pool.query(
    `SELECT count(*) FILTER (WHERE m.status NOT IN ('sent', 'delivered'))::int AS failed,
            extract(epoch FROM max(m.sent_at) - $2::timestamptz) * 1000 AS span_ms,
            count(*)::int AS n,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM m.sent_at - e.created_at) * 1000) AS p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM m.sent_at - e.created_at) * 1000) AS p99
       FROM messages m JOIN events e ON e.id = m.event_id WHERE e.created_at >= $1`,
    [since, from === "queued" ? startedAt : since],
  );
  const r = rows[0];
  return {
    perSecond: (1000 * r.n) / Number(r.span_ms),
    p50: Number(r.p50),
    p99: Number(r.p99),
    failed: r.failed,
  };
}

async function runSvc(pool: Pool, queues: Queues): Promise<{ burst: Run; paced: Run; deliveryOnly: number }> {
  // burst
  let since = new Date();
  await insertEvents(pool, queues, N);
  await until(async () => (await sentCount(pool, since)) >= N, 300_000, "svc burst");
  const burst = await svcStats(pool, since, "event");
  // paced, at half the burst rate
  since = new Date();
  const pacedCount = await addPaced(burst.perSecond / 2, (count) => insertEvents(pool, queues, count));
  await until(async () => (await sentCount(pool, since)) >= pacedCount, 120_000, "svc paced");
  const pacedStats = await svcStats(pool, since, "event");
  // delivery only
  since = new Date();
  const delivery = queues.queue("delivery");
  await delivery.pause();
  await insertEvents(pool, queues, N, "bench.later");
  await until(
    async () =>
      (
        await pool.query(
          `SELECT count(*)::int AS n FROM messages WHERE status = 'queued' AND created_at >= $1`,
          [since],
        )
      ).rows[0].n >= N,
    300_000,
    "svc ingest",
  );
  // Every job due (delayed jobs of a paused queue move to its paused list when due).
  const { rows } = await pool.query(`SELECT max(send_at) AS last FROM messages WHERE created_at >= $1`, [
    since,
  ]);
  await sleep(Math.max(0, (rows[0].last as Date).getTime() + 200 - Date.now()));
  const resumedAt = new Date();
  await delivery.resume();
  await until(async () => (await sentCount(pool, since)) >= N, 300_000, "svc delivery");
  const deliveryOnly = await svcStats(pool, since, "queued", resumedAt);
  return { burst, paced: pacedStats, deliveryOnly: deliveryOnly.perSecond };
}

/** Calls `add(k)` every 20 ms so `rate` items per second go in for PACED_SECONDS; returns how many. */
async function addPaced(rate: number, add: (count: number) => Promise<void>): Promise<number> {
  const start = Date.now();
  let added = 0;
  while (Date.now() - start < PACED_SECONDS * 1000) {
    const due = Math.floor(((Date.now() - start) / 1000) * rate) - added;
    if (due > 0) {
      await add(due);
      added += due;
    }
    await sleep(20);
  }
  return added;
}

// ---- bare chain --------------------------------------------------------------------------------

async function runChain(pool: Pool, first: Queue, last: Queue): Promise<{ burst: Run; paced: Run }> {
  const add = async (count: number) => {
    const ids = Array.from({ length: count }, () => `item-${randomBytes(8).toString("hex")}`);
    const at = Date.now();
    await pool.query(`INSERT INTO bench_items (id) SELECT unnest($1::text[])`, [ids]);
    await first.addBulk(
      ids.map((id) => ({ name: "step", data: { id, at }, opts: { jobId: id, removeOnComplete: true } })),
    );
  };
  const measure = async (count: number, startedAt: number): Promise<Run> => {
    await until(async () => (await last.getCompletedCount()) >= count, 300_000, "chain");
    const jobs = await last.getCompleted(0, -1);
    const latencies = jobs.map((j) => j.finishedOn! - (j.data as { at: number }).at).sort((a, b) => a - b);
    const end = Math.max(...jobs.map((j) => j.finishedOn!));
    await last.clean(0, 1_000_000, "completed");
    const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
    return { perSecond: (1000 * count) / (end - startedAt), p50: pick(0.5), p99: pick(0.99) };
  };
  let start = Date.now();
  await add(N);
  const burst = await measure(N, start);
  start = Date.now();
  const count = await addPaced(burst.perSecond / 2, add);
  const pacedRun = await measure(count, start);
  return { burst, paced: pacedRun };
}

// ---- main --------------------------------------------------------------------------------------

async function main() {
  const databases = await benchDatabases("drain", 4);
  const { tag, svcUrl: svcDb, chainUrl: chainDb, svcPool, chainPool } = databases;
  await chainPool.query(
    `CREATE TABLE IF NOT EXISTS bench_items (id text PRIMARY KEY, step int NOT NULL DEFAULT -1, sent_at timestamptz)`,
  );
  await setUpSvc(svcPool);

  const dir = mkdtempSync(path.join(tmpdir(), "svc-drain-"));
  const configFile = path.join(dir, "svc.yaml");
  const svcPrefix = `svc-bench-drain-${tag}`;
  writeFileSync(
    configFile,
    JSON.stringify({
      database: { url: svcDb, auto_migrate: false },
      redis: { url: REDIS_URL, prefix: svcPrefix },
      channels: { push: { provider: "console" } },
      log: { level: "warn" },
    }),
  );
  const queues = createQueues({ redisUrl: REDIS_URL, prefix: svcPrefix });
  await queues.ready();
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const secretKey = randomBytes(32).toString("base64");
  const worker = (queueNames: string, args: string[]) =>
    startChild(
      [
        ...args,
        "-r",
        REGISTER,
        path.join(ROOT, "apps/worker/src/main.ts"),
        "--config",
        configFile,
        "--queues",
        queueNames,
      ],
      {
        SVC_SECRET_KEY: secretKey,
      },
    );
  // BENCH_DELIVERY_PROF=<dir>: delivery runs in one extra process of its own, CPU-profiled there.
  const profileDir = process.env.BENCH_DELIVERY_PROF;
  const svcWorkers = Array.from({ length: WORKERS }, () =>
    worker(profileDir ? "ingest,policy,scheduler" : "ingest,policy,delivery,scheduler", nodeArgs),
  );
  if (profileDir) svcWorkers.push(worker("delivery", ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]));
  const chainPrefix = `svc-bench-chain-${tag}`;
  const chainQueues = ["chain-a", "chain-b", "chain-c"].map(
    (name) => new Queue(name, { connection: { url: REDIS_URL }, prefix: chainPrefix }),
  );
  const results = {
    svc: [] as Run[],
    svcPaced: [] as Run[],
    deliveryOnly: [] as number[],
    update: [] as Run[],
    updatePaced: [] as Run[],
    noupdate: [] as Run[],
    noupdatePaced: [] as Run[],
  };
  try {
    await until(
      async () => {
        if (svcWorkers.some((w) => w.exitCode !== null)) throw new Error("a svc worker exited");
        return (
          (await queues.queue("ingest").getWorkersCount()) >= WORKERS &&
          (await queues.queue("delivery").getWorkersCount()) >= 1
        );
      },
      60_000,
      "svc workers",
    );
    for (let round = 0; round < ROUNDS; round++) {
      const svc = await runSvc(svcPool, queues);
      results.svc.push(svc.burst);
      results.svcPaced.push(svc.paced);
      results.deliveryOnly.push(svc.deliveryOnly);
      console.log(
        `round ${round + 1} svc: ${fmt(svc.burst.perSecond)} msg/s, paced p50 ${fmt(svc.paced.p50)} ms p99 ${fmt(svc.paced.p99)} ms, delivery only ${fmt(svc.deliveryOnly)} msg/s`,
      );
      for (const mode of process.env.BENCH_ONLY === "svc" ? [] : (["update", "noupdate"] as const)) {
        const chain = Array.from({ length: WORKERS }, () =>
          startChild([
            path.join(__dirname, "reference/bare-delivery-chain.js"),
            chainDb,
            REDIS_URL,
            chainPrefix,
            mode,
          ]),
        );
        try {
          await until(
            async () => (await chainQueues[2]!.getWorkersCount()) >= WORKERS,
            30_000,
            "chain workers",
          );
          const run = await runChain(chainPool, chainQueues[0]!, chainQueues[2]!);
          results[mode].push(run.burst);
          results[`${mode}Paced`].push(run.paced);
          console.log(
            `round ${round + 1} chain ${mode}: ${fmt(run.burst.perSecond)} items/s, paced p50 ${fmt(run.paced.p50)} ms p99 ${fmt(run.paced.p99)} ms`,
          );
        } finally {
          await stopAll(chain);
        }
      }
    }
  } finally {
    await stopAll(svcWorkers);
    await queues.close();
    await Promise.all(chainQueues.map((q) => q.obliterate({ force: true }).then(() => q.close())));
    await databases.drop();
  }
  const m = (runs: Run[], key: keyof Run) => median(runs.map((r) => r[key]));
  const svcRate = m(results.svc, "perSecond");
  const updateRate = m(results.update, "perSecond");
  const table = `
## Delivery drain: events → \`sent\`

${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Postgres and Redis on the same machine.
${ROUNDS} rounds of ${fmt(N)} messages, medians; ${WORKERS} worker processes per system.

- svc: pending events inserted directly with their ingest jobs, one \`ingest-events\` job per ${ACCEPT_BATCH} events as
  the accept path's group commit leaves them (bulk); one rule sends each
  on a \`console\` channel (output to /dev/null) to one of 1,000 recipients with an address; worker
  child processes running ingest, policy, delivery and scheduler with the default concurrency (ingest 20,
  policy 20, delivery 50); each delivers ingest's due messages inline (no delivery-queue hop).
- bare chain: three BullMQ queues (concurrency 20, 20, 50), each step one Postgres UPDATE of the
  item's row (or none) and one add of the next step's job.
- Messages/s: burst of ${fmt(N)} items, count / (last finished − first inserted). Latency: items
  added at half the burst rate for ${PACED_SECONDS} s, insert → sent (svc: event \`created_at\` → \`sent_at\`).

| System | Messages (items)/s, burst | Jobs/s | p50 latency (paced) | p99 latency (paced) | svc ratio |
|---|---|---|---|---|---|
| svc: event → ingest → deliver → \`sent\` | ${fmt(svcRate)} | – | ${fmt(m(results.svcPaced, "p50"))} ms | ${fmt(m(results.svcPaced, "p99"))} ms | 1.00 |
| bare chain, one UPDATE per step | ${fmt(updateRate)} | ${fmt(3 * updateRate)} | ${fmt(m(results.updatePaced, "p50"))} ms | ${fmt(m(results.updatePaced, "p99"))} ms | ${fmt(svcRate / updateRate, 2)} |
| bare chain, no UPDATE | ${fmt(m(results.noupdate, "perSecond"))} | ${fmt(3 * m(results.noupdate, "perSecond"))} | ${fmt(m(results.noupdatePaced, "p50"))} ms | ${fmt(m(results.noupdatePaced, "p99"))} ms | ${fmt(svcRate / m(results.noupdate, "perSecond"), 2)} |

An item of the bare chain is three jobs (the issue's "about 1,300 jobs/s with UPDATEs, 2,800/s
without" are jobs); an svc message is compared with one item, a full trip through three steps.

svc's delivery stage alone (messages due 1 s after their event wait in the paused delivery queue
until ingest queued all ${fmt(N)}; then resumed, queued → \`sent\`): ${fmt(median(results.deliveryOnly))} messages/s.

Target: svc ≥ 1.0 × bare chain with UPDATEs = ${fmt(updateRate)} messages/s: **${svcRate >= updateRate ? "met" : "not met"}**
(svc/bare = ${fmt(svcRate / updateRate, 2)}). Rounds, burst: svc ${results.svc.map((r) => fmt(r.perSecond)).join(", ")}; bare chain
with UPDATEs ${results.update.map((r) => fmt(r.perSecond)).join(", ")} items/s.

What made the drain faster (profile first: \`BENCH_DELIVERY_PROF=<dir>\` runs delivery in its own
CPU-profiled process; on this box most worker time is socket writes to Postgres and Redis, so the
work was cutting round trips):

- The jobs one worker runs at once share their queries: claim, re-checks, links and the
  attempts + \`sent\` write are one statement per batch instead of about 16 round trips per
  message (delivery stage alone 174 → 1,100 messages/s).
- Ingest's messages due now are delivered in the same process, without a trip through the
  delivery queue (events → sent 250 → 369 messages/s and paced p50 312 → 136 ms in one A/B run).
- One ingest job per accept batch (\`ingest-events\`) instead of one per event, and one
  \`deliver-messages\` job per ingest batch when delivery runs elsewhere: BullMQ runs a Lua script
  per job even in \`addBulk\`, so jobs per message were most of the Redis work (events → sent
  741 → 1,333 messages/s; the chain made 749 in the same run).
- Sweeps bump up to 500 stuck rows in one statement (\`FOR UPDATE SKIP LOCKED\`).
- Rounds vary a lot on this shared 2-core box (other benchmarks ran at the same time); the ratio
  compares systems run back to back in each round.
`;
  console.log(table);
  if (process.env.BENCH_ONLY === "svc") return;
  if (process.env.BENCH_WRITE !== "0") writeSection("delivery-drain", table);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
