/**
 * Events → composed messages per second through the `ingest-event` job (rule matching and the
 * policy pipeline inline), beside a bare chain of two BullMQ queues doing one Postgres UPDATE per
 * step, run in the same session with the same concurrency. Each round preloads N pending events
 * (many recipients with an address, one rule in a category without caps, console channel), pauses
 * the queue, bulk-enqueues their jobs, resumes it and times until N new rows are in `messages`.
 * Only the ingest and policy queues run (delivery stopped). The worker runs from source.
 * Run: `npm run bench:compose` (BENCH_EVENTS, BENCH_ROUNDS, BENCH_CONCURRENCY, BENCH_CPU_PROF=<dir>).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Queue } from "bullmq";
import { Pool } from "pg";
import { newId } from "@svc/core";
import { createQueues, type BulkItem } from "@svc/queue";
import { dropDatabase, ensureDatabase, migrate, withDatabaseName } from "@svc/store";
import { stop } from "./lib/processes";
import { fmt, writeSection } from "./lib/results";
import { median } from "./lib/wrk";

const ROOT = path.resolve(__dirname, "..");
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20); // worker.concurrency.ingest default
const RECIPIENTS = Number(process.env.BENCH_RECIPIENTS ?? 2_000);
const CPU_PROF = process.env.BENCH_CPU_PROF;
const SERVER = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const FROM_SOURCE = path.join(__dirname, "lib/from-source.js");

interface Target {
  name: string;
  /** Adds `count` pending units of work and returns what to enqueue. */
  prepare(count: number): Promise<() => Promise<void>>;
  done(): Promise<number>;
}

async function main() {
  const tag = randomBytes(3).toString("hex");
  const svcDb = withDatabaseName(SERVER, `svc_bench_compose_${tag}`);
  const bareDb = withDatabaseName(SERVER, `svc_bench_chain_${tag}`);
  const svcPrefix = `svc-bench-compose-${tag}`;
  const barePrefix = `svc-bench-chain-${tag}`;
  await migrate({ databaseUrl: svcDb, migrationsDir: path.join(ROOT, "prisma/migrations"), createDatabase: true });
  await ensureDatabase(bareDb);
  const svcPool = new Pool({ connectionString: svcDb, max: 2 });
  const barePool = new Pool({ connectionString: bareDb, max: 2 });
  await seedSvc(svcPool);
  await barePool.query("CREATE TABLE bench_chain (id bigint PRIMARY KEY, step int NOT NULL DEFAULT 0)");

  const queues = createQueues({ redisUrl: REDIS_URL, prefix: svcPrefix });
  const chainA = new Queue("chain-a", { connection: { url: REDIS_URL }, prefix: barePrefix });
  const chainB = new Queue("chain-b", { connection: { url: REDIS_URL }, prefix: barePrefix });
  const configFile = path.join(mkdtempSync(path.join(tmpdir(), "svc-bench-compose-")), "svc.yaml");
  writeFileSync(configFile, `channels:\n  console:\n    provider: console\n`);
  const profDir = CPU_PROF ? path.resolve(CPU_PROF) : null;

  const svcWorker = spawnWorker(
    [...(profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : []), "-r", FROM_SOURCE, path.join(ROOT, "apps/worker/src/main.ts"), "--queues", "ingest,policy", "--config", configFile],
    {
      DATABASE_URL: svcDb,
      REDIS_URL,
      SVC_SECRET_KEY: randomBytes(32).toString("base64"),
      SVC__REDIS__PREFIX: svcPrefix,
      SVC__LOG__LEVEL: "warn",
      SVC__WORKER__CONCURRENCY__INGEST: String(CONCURRENCY),
      SVC__WORKER__CONCURRENCY__POLICY: String(CONCURRENCY),
    },
  );
  const bareWorker = spawnWorker([path.join(__dirname, "reference/bare-chain.js"), bareDb, REDIS_URL, barePrefix, String(CONCURRENCY)], {});

  let nextChainId = 0;
  const targets: Target[] = [
    {
      name: "svc",
      prepare: async (count) => {
        const ids = await insertEvents(svcPool, count);
        return async () => {
          for (let i = 0; i < ids.length; i += 1_000) {
            const items = ids.slice(i, i + 1_000).map((eventId): BulkItem<"ingest-event"> => ({ name: "ingest-event", payload: { eventId } }));
            await queues.enqueueBulk(items);
          }
        };
      },
      done: () => count(svcPool, "SELECT count(*) AS n FROM messages"),
    },
    {
      name: "bare",
      prepare: async (count) => {
        const from = nextChainId;
        nextChainId += count;
        await barePool.query("INSERT INTO bench_chain (id) SELECT generate_series($1::bigint, $2::bigint)", [from, from + count - 1]);
        return async () => {
          for (let i = from; i < from + count; i += 1_000) {
            const ids = Array.from({ length: Math.min(1_000, from + count - i) }, (_, k) => i + k);
            await chainA.addBulk(ids.map((id) => ({ name: "a", data: { id }, opts: { jobId: `a-${id}`, removeOnComplete: true } })));
          }
        };
      },
      done: () => count(barePool, "SELECT count(*) AS n FROM bench_chain WHERE step = 2"),
    },
  ];
  const queueOf = { svc: queues.queue("ingest"), bare: chainA } as Record<string, Queue>;

  const rates: Record<string, number[]> = { svc: [], bare: [] };
  try {
    // The warm-up round also waits for the workers to start (their jobs wait in the queue meanwhile).
    for (const target of targets) await runRound(target, queueOf[target.name]!, Math.min(2_000, EVENTS));
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of targets) {
        const rate = await runRound(target, queueOf[target.name]!, EVENTS);
        rates[target.name]!.push(rate);
        console.log(`round ${round + 1} ${target.name}: ${fmt(rate)} events/s`);
      }
    }
    await checkSvc(svcPool);
  } finally {
    await Promise.all([stop(svcWorker), stop(bareWorker)]);
    for (const queue of [...Object.values(queueOf), chainB, queues.queue("delivery"), queues.queue("policy")]) {
      await queue.obliterate({ force: true }).catch(() => undefined);
    }
    await Promise.all([chainA.close(), chainB.close(), queues.close(), svcPool.end(), barePool.end()]);
    await dropDatabase(svcDb);
    await dropDatabase(bareDb);
  }
  if (profDir) await summarise(profDir);

  const m = { svc: median(rates.svc!), bare: median(rates.bare!) };
  const ratio = m.svc / m.bare;
  const table = `
## Compose path: events → messages

${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${ROUNDS} rounds of ${fmt(EVENTS)} events
for ${fmt(RECIPIENTS)} recipients, concurrency ${CONCURRENCY}, medians. Queue paused, jobs bulk-enqueued, resumed; timed until
every event has its row in \`messages\`. Worker from source with \`--queues ingest,policy\` (delivery stopped).

| Pipeline | Events/s (median) | Rounds | svc ratio |
|---|---|---|---|
| svc \`ingest-event\` (lock, rules, policy, render, message + outcome + event in one transaction, delivery enqueue) | ${fmt(m.svc)} | ${rates.svc!.map((r) => fmt(r)).join(", ")} | 1.00 |
| bare chain: BullMQ job → one UPDATE → BullMQ job → one UPDATE | ${fmt(m.bare)} | ${rates.bare!.map((r) => fmt(r)).join(", ")} | ${fmt(ratio, 2)} |

Target: svc ≥ 1.0 × bare chain = ${fmt(m.bare)} events/s: **${ratio >= 1 ? "met" : "not met"}** (svc/bare = ${fmt(ratio, 2)}).
`;
  console.log(table);
  if (process.env.BENCH_WRITE !== "0") writeSection("compose", `${table}\n${process.env.BENCH_NOTES ?? ""}`);
}

async function runRound(target: Target, queue: Queue, events: number): Promise<number> {
  const before = await target.done();
  const enqueue = await target.prepare(events);
  await queue.pause();
  await enqueue();
  const started = performance.now();
  await queue.resume();
  const deadline = Date.now() + 10 * 60_000;
  while ((await target.done()) < before + events) {
    if (Date.now() > deadline) throw new Error(`${target.name}: not done after 10 minutes`);
    if (process.env.BENCH_VERBOSE) console.log(target.name, (await target.done()) - before);
    await sleep(25);
  }
  return (events * 1000) / (performance.now() - started);
}

async function seedSvc(pool: Pool) {
  await pool.query(`INSERT INTO categories (key, frequency_caps, respect_quiet_hours, updated_at) VALUES ('bench', '[]', false, now())`);
  await pool.query(
    `INSERT INTO templates (key, locales, updated_at) VALUES ('bench', $1, now())`,
    [{ en: { title: "Order {{ data.order }}", body: "Hello {{ recipient.external_id }}, your order {{ data.order }} of {{ data.total }} is confirmed." } }],
  );
  await pool.query(
    `INSERT INTO rules (key, event, template, category, channels, updated_at) VALUES ('bench-order', 'order.created', 'bench', 'bench', '{console}', now())`,
  );
  for (let i = 0; i < RECIPIENTS; i += 1_000) {
    const n = Math.min(1_000, RECIPIENTS - i);
    const ids = Array.from({ length: n }, () => newId("recipient"));
    const externals = Array.from({ length: n }, (_, k) => `user-${i + k}`);
    await pool.query(`INSERT INTO recipients (id, external_id, updated_at) SELECT * , now() FROM unnest($1::text[], $2::text[])`, [ids, externals]);
    await pool.query(`INSERT INTO addresses (recipient_id, channel, value, updated_at) SELECT id, 'console', external_id, now() FROM unnest($1::text[], $2::text[]) AS t(id, external_id)`, [ids, externals]);
  }
}

let eventCounter = 0;
async function insertEvents(pool: Pool, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 5_000) {
    const n = Math.min(5_000, count - i);
    const chunk = Array.from({ length: n }, () => newId("event"));
    const recipients = chunk.map(() => `user-${eventCounter++ % RECIPIENTS}`);
    const data = chunk.map((_, k) => JSON.stringify({ order: eventCounter - n + k, total: "42.00" }));
    await pool.query(
      `INSERT INTO events (id, name, sender, recipient_external_id, data) SELECT id, 'order.created', 'backend', r, d::jsonb FROM unnest($1::text[], $2::text[], $3::text[]) AS t(id, r, d)`,
      [chunk, recipients, data],
    );
    ids.push(...chunk);
  }
  return ids;
}

async function count(pool: Pool, sql: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(sql);
  return Number(rows[0]!.n);
}

// Every event processed, one outcome and one queued message each: the rate counts real work.
async function checkSvc(pool: Pool) {
  const { rows } = await pool.query<{ status: string; n: string }>(`SELECT status::text, count(*) AS n FROM events GROUP BY 1`);
  const byStatus = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  const events = await count(pool, "SELECT count(*) AS n FROM events");
  const queued = await count(pool, "SELECT count(*) AS n FROM messages WHERE status = 'queued'");
  const outcomes = await count(pool, "SELECT count(*) AS n FROM event_outcomes WHERE message_id IS NOT NULL");
  if (byStatus.processed !== events || queued !== events || outcomes !== events) {
    throw new Error(`svc check failed: events ${JSON.stringify(byStatus)}, queued messages ${queued}, outcomes ${outcomes}`);
  }
}

function spawnWorker(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  child.stderr!.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  return child;
}

async function summarise(dir: string) {
  const { summarizeProfile } = require("./lib/cpu-profile") as typeof import("./lib/cpu-profile");
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    console.log(`\n${file}\n${summarizeProfile(path.join(dir, file))}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
