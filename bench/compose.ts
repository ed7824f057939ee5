/**
 * Events → composed messages per second through the `ingest-event` job (rule matching and the
 * policy pipeline inline), beside a bare chain of two BullMQ queues doing one Postgres UPDATE per
 * step, run in the same session with the same concurrency. Each round preloads N pending events
 * (many recipients with an address, one rule in a category without caps, console channel), pauses
 * the queue, bulk-enqueues their jobs, resumes it and times until N new rows are in `messages`.
 * Only the ingest and policy queues run (delivery stopped). The worker runs from source.
 * Run: `npm run bench:compose` (BENCH_EVENTS, BENCH_ROUNDS, BENCH_CONCURRENCY, BENCH_CPU_PROF=<dir>).
 * `BENCH_AB_RENDER=1` adds a second svc worker that renders in its own thread (`render.threads: 0`)
 * beside the default one (a render thread, docs/templates.md "Limits"), in the same rounds, and
 * prints their A/B instead of writing benchmarks.md (docs/decisions.md "Hostile input").
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
import { QUEUE_NAMES, createQueues } from "@svc/queue";
import { ACCEPT_BATCH, acceptShapedJobs } from "./lib/accept-shaped-jobs";
import { benchDatabases } from "./lib/bench-databases";
import { summarizeProfile } from "./lib/cpu-profile";
import { stop } from "./lib/processes";
import { fmt, writeSection } from "./lib/results";
import { median } from "./lib/wrk";

const ROOT = path.resolve(__dirname, "..");
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20); // worker.concurrency.ingest default
const RECIPIENTS = Number(process.env.BENCH_RECIPIENTS ?? 2_000);
const CPU_PROF = process.env.BENCH_CPU_PROF;
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const FROM_SOURCE = path.join(__dirname, "../scripts/register-ts.cjs");
const AB_RENDER = process.env.BENCH_AB_RENDER === "1";

interface Target {
  name: string;
  /** Adds `count` pending units of work and returns what to enqueue. */
  prepare(count: number): Promise<() => Promise<void>>;
  done(): Promise<number>;
}

async function main() {
  const databases = await benchDatabases("compose", 2);
  const { tag, svcUrl: svcDb, chainUrl: bareDb, svcPool, chainPool: barePool } = databases;
  const svcPrefix = `svc-bench-compose-${tag}`;
  const barePrefix = `svc-bench-chain-${tag}`;
  await seedSvc(svcPool);
  await barePool.query("CREATE TABLE bench_chain (id bigint PRIMARY KEY, step int NOT NULL DEFAULT 0)");

  const queues = createQueues({ redisUrl: REDIS_URL, prefix: svcPrefix });
  const chainA = new Queue("chain-a", { connection: { url: REDIS_URL }, prefix: barePrefix });
  const chainB = new Queue("chain-b", { connection: { url: REDIS_URL }, prefix: barePrefix });
  const configFile = path.join(mkdtempSync(path.join(tmpdir(), "svc-bench-compose-")), "svc.yaml");
  writeFileSync(configFile, `channels:\n  console:\n    provider: console\n`);
  const profDir = CPU_PROF ? path.resolve(CPU_PROF) : null;

  const startSvcWorker = (prefix: string, renderThreads: number) =>
    spawnWorker(
      [
        ...(profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : []),
        "-r",
        FROM_SOURCE,
        path.join(ROOT, "apps/worker/src/main.ts"),
        "--queues",
        "ingest,policy",
        "--config",
        configFile,
      ],
      {
        DATABASE_URL: svcDb,
        REDIS_URL,
        SVC_SECRET_KEY: randomBytes(32).toString("base64"),
        SVC__REDIS__PREFIX: prefix,
        SVC__LOG__LEVEL: "warn",
        SVC__WORKER__CONCURRENCY__INGEST: String(CONCURRENCY),
        SVC__WORKER__CONCURRENCY__POLICY: String(CONCURRENCY),
        SVC__RENDER__THREADS: String(renderThreads),
      },
    );
  const svcWorker = startSvcWorker(svcPrefix, 1);
  // The A/B's other side: the same worker, rendering in its own thread, on its own queues.
  const inlinePrefix = `${svcPrefix}-inline`;
  const inlineQueues = AB_RENDER ? createQueues({ redisUrl: REDIS_URL, prefix: inlinePrefix }) : null;
  const inlineWorker = AB_RENDER ? startSvcWorker(inlinePrefix, 0) : null;
  const bareWorker = spawnWorker(
    [path.join(__dirname, "reference/bare-chain.js"), bareDb, REDIS_URL, barePrefix, String(CONCURRENCY)],
    {},
  );

  let nextChainId = 0;
  const targets: Target[] = [
    {
      name: "svc",
      prepare: async (count) => {
        const ids = await insertEvents(svcPool, count);
        return async () => {
          const jobs = acceptShapedJobs(ids);
          for (let i = 0; i < jobs.length; i += 1_000) await queues.enqueueBulk(jobs.slice(i, i + 1_000));
        };
      },
      done: () => count(svcPool, "SELECT count(*) AS n FROM messages"),
    },
    {
      name: "bare",
      prepare: async (count) => {
        const from = nextChainId;
        nextChainId += count;
        await barePool.query("INSERT INTO bench_chain (id) SELECT generate_series($1::bigint, $2::bigint)", [
          from,
          from + count - 1,
        ]);
        return async () => {
          for (let i = from; i < from + count; i += 1_000) {
            const ids = Array.from({ length: Math.min(1_000, from + count - i) }, (_, k) => i + k);
            await chainA.addBulk(
              ids.map((id) => ({
                name: "a",
                data: { id },
                opts: { jobId: `a-${id}`, removeOnComplete: true },
              })),
            );
          }
        };
      },
      done: () => count(barePool, "SELECT count(*) AS n FROM bench_chain WHERE step = 2"),
    },
  ];
  const queueOf = { svc: queues.queue("ingest"), bare: chainA } as Record<string, Queue>;
  if (inlineQueues) {
    targets.push({
      name: "svc-inline",
      prepare: async (count) => {
        const ids = await insertEvents(svcPool, count);
        return async () => {
          const jobs = acceptShapedJobs(ids);
          for (let i = 0; i < jobs.length; i += 1_000)
            await inlineQueues.enqueueBulk(jobs.slice(i, i + 1_000));
        };
      },
      done: () => count(svcPool, "SELECT count(*) AS n FROM messages"),
    });
    queueOf["svc-inline"] = inlineQueues.queue("ingest");
  }

  const rates: Record<string, number[]> = { svc: [], bare: [], "svc-inline": [] };
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
    await Promise.all([stop(svcWorker), stop(bareWorker), ...(inlineWorker ? [stop(inlineWorker)] : [])]);
    const svcQueues = [queues, ...(inlineQueues ? [inlineQueues] : [])];
    for (const queue of [
      chainA,
      chainB,
      ...svcQueues.flatMap((q) => QUEUE_NAMES.map((name) => q.queue(name))),
    ]) {
      await queue.obliterate({ force: true }).catch(() => undefined);
    }
    await Promise.all([chainA.close(), chainB.close(), ...svcQueues.map((q) => q.close())]);
    await databases.drop();
  }
  if (profDir) summarise(profDir);

  if (AB_RENDER) {
    const onThread = median(rates.svc!);
    const inline = median(rates["svc-inline"]!);
    console.log(`
## A/B: rendering on a worker thread against in the worker's own thread

${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, ${ROUNDS} rounds of ${fmt(EVENTS)} events each, alternating in one run; medians.

| Worker | Events/s (median) | Rounds | Against in-thread |
|---|---|---|---|
| render.threads 1 (a render thread, hard limit) | ${fmt(onThread)} | ${rates.svc!.map((r) => fmt(r)).join(", ")} | ${fmt(onThread / inline, 2)} |
| render.threads 0 (in the worker's own thread) | ${fmt(inline)} | ${rates["svc-inline"]!.map((r) => fmt(r)).join(", ")} | 1.00 |
| bare chain (same session) | ${fmt(median(rates.bare!))} | ${rates.bare!.map((r) => fmt(r)).join(", ")} | |
`);
    return;
  }
  const m = { svc: median(rates.svc!), bare: median(rates.bare!) };
  const ratio = m.svc / m.bare;
  const table = `
## Compose path: events → messages

${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${ROUNDS} rounds of ${fmt(EVENTS)} events
for ${fmt(RECIPIENTS)} recipients, concurrency ${CONCURRENCY} per queue, medians. Each round: queue paused, jobs bulk-enqueued,
resumed, timed until every event has its row in \`messages\`. One \`ingest-events\` job per ${ACCEPT_BATCH} events, as the
accept path's group commit leaves them. The svc worker runs from source with \`--queues ingest,policy\`
(delivery stopped); \`npm run bench:compose\`.

| Pipeline | Events/s (median) | Jobs/s | Rounds (events/s) | svc ratio |
|---|---|---|---|---|
| svc \`ingest-events\` (locks, rules, policy, render; messages, outcomes, event status in one transaction; delivery enqueue) | ${fmt(m.svc)} | ${fmt(m.svc / ACCEPT_BATCH)} | ${rates.svc!.map((r) => fmt(r)).join(", ")} | 1.00 |
| bare chain: job → one UPDATE → job → one UPDATE | ${fmt(m.bare)} | ${fmt(2 * m.bare)} | ${rates.bare!.map((r) => fmt(r)).join(", ")} | ${fmt(ratio, 2)} |

Target: svc events/s ≥ 1.0 × bare chain = ${fmt(m.bare)} events/s: **${ratio >= 1 ? "met" : "not met"}** (svc/bare = ${fmt(ratio, 2)};
against the chain's jobs/s, ${fmt(m.svc / (2 * m.bare), 2)}).
`;
  console.log(table);
  if (process.env.BENCH_WRITE !== "0") writeSection("compose", `${table}\n${NOTES}`);
}

const NOTES = `
### What made it fast

Same machine, same session each time (2 shared cores, other benchmarks running: the bare chain itself
moved between 800 and 2,400 events/s over the hour, so compare ratios, not absolutes):

| Step | svc events/s | bare chain | ratio |
|---|---|---|---|
| before: one transaction per event, ~22 statements through Prisma | 55–67 | 795–943 | 0.07 |
| one-compose fast path: peek, both locks in one statement, one snapshot read, cached configuration, one write statement | 117–124 | 858–888 | 0.14 |
| group commit of the jobs running at once (one transaction per batch) | 587 | 1,070 | 0.55 |
| batches wait 2 ms for company | 814–1,022 | 1,737–2,316 | 0.44–0.51 |
| a batch peeks and locks in one statement inside its transaction | 707–840 | 1,160–1,960 | 0.43–0.61 |
| one \`ingest-events\` job per accept batch (13 events) instead of one job per event; up to 64 events per transaction | 2,471–2,676 | 1,196–1,432 | 2.18 |

- **Profile first** (\`BENCH_CPU_PROF=<dir> npm run bench:compose\`, self time of the worker): before, 30 % in
  \`@prisma/client\` (query building and result mapping, ~22 queries per event) and 25 % in \`writev\`/\`writeBuffer\`
  (one socket write per statement: system calls are expensive here). After, the worker is ~60 % idle:
  latency of the few statements per batch, not CPU, bounds it.
- **Statements per event.** The common event (known person, no inline profile, no agent, at most one rule
  firing for a message) reads everything in one statement under the locks: the event, the person with
  addresses, consents and fatigue states, whether the event already has a message, and the configuration
  fingerprint. It writes messages, outcomes and the \`processed\` status in one statement
  (\`json_populate_recordset\`). Everything else (profiles, agents, digests, several messages per event, a
  retry that finds a message) takes the general path, which decides the same way through \`composeMessage\`.
- **Configuration cache with no window.** Rules, templates and categories are kept per process under a
  fingerprint of the three tables (row count and a hash over each row's key and \`xmin\`, which changes with
  every UPDATE), read in the same statement as the event, after its locks. An edit committed before that
  statement changes the fingerprint, so the next event reloads; edits from any writer count (API, svcctl, SQL).
- **Group commit.** The up to 20 jobs a worker runs at once hand their event ids to a batcher; two
  transactions run at a time and ids that arrive meanwhile (or within 2 ms) go into the next, at most 20, one
  per person (a person's second event runs after the batch commits). A batch takes every external-id lock,
  then every internal-id lock, each group in key order, so batches, single ingests and direct sends cannot
  wait in a circle. Messages, outcomes and statuses commit together; delivery jobs of the whole batch go out
  in one bulk add after the commit, and each job completes only then. If a batch fails, its events run one by
  one, so one bad event fails only its own job.
- **Jobs per event.** BullMQ runs Lua scripts per job (add, move to active, complete), even in
  \`addBulk\`: at one job per event that was most of the Redis work and of the worker's round trips,
  and 20 jobs in flight meant at most 20 events in flight. The accept path now leaves one
  \`ingest-events\` job per group commit (13 events on average under 32 clients), so the same 20
  jobs carry a few hundred events, and the batcher fills transactions of up to 64 (one per person;
  a person's next event goes into the next round after the commit, keeping arrival order).
- **What bounded it before the batch jobs.** Throughput is jobs in flight (20) over the time a batch takes: BEGIN, peek with
  locks, snapshot, write, COMMIT and the bulk add, about 10–25 ms here, where the message insert (16 indexes on
  \`messages\`) is the largest part. The bare chain has 40 jobs in flight (20 per queue) doing one
  index-free UPDATE each.
`;

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
  await pool.query(
    `INSERT INTO categories (key, frequency_caps, respect_quiet_hours, updated_at) VALUES ('bench', '[]', false, now())`,
  );
  await pool.query(`INSERT INTO templates (key, locales, updated_at) VALUES ('bench', $1, now())`, [
    {
      en: {
        title: "Order {{ data.order }}",
        body: "Hello {{ recipient.external_id }}, your order {{ data.order }} of {{ data.total }} is confirmed.",
      },
    },
  ]);
  await pool.query(
    `INSERT INTO rules (key, event, template, category, channels, updated_at) VALUES ('bench-order', 'order.created', 'bench', 'bench', '{console}', now())`,
  );
  for (let i = 0; i < RECIPIENTS; i += 1_000) {
    const n = Math.min(1_000, RECIPIENTS - i);
    const ids = Array.from({ length: n }, () => newId("recipient"));
    const externals = Array.from({ length: n }, (_, k) => `user-${i + k}`);
    await pool.query(
      `INSERT INTO recipients (id, external_id, updated_at) SELECT * , now() FROM unnest($1::text[], $2::text[])`,
      [ids, externals],
    );
    await pool.query(
      `INSERT INTO addresses (recipient_id, channel, value, updated_at) SELECT id, 'console', external_id, now() FROM unnest($1::text[], $2::text[]) AS t(id, external_id)`,
      [ids, externals],
    );
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
  const { rows } = await pool.query<{ status: string; n: string }>(
    `SELECT status::text, count(*) AS n FROM events GROUP BY 1`,
  );
  const byStatus = Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  const events = await count(pool, "SELECT count(*) AS n FROM events");
  const queued = await count(pool, "SELECT count(*) AS n FROM messages WHERE status = 'queued'");
  const outcomes = await count(pool, "SELECT count(*) AS n FROM event_outcomes WHERE message_id IS NOT NULL");
  if (byStatus.processed !== events || queued !== events || outcomes !== events) {
    throw new Error(
      `svc check failed: events ${JSON.stringify(byStatus)}, queued messages ${queued}, outcomes ${outcomes}`,
    );
  }
}

function spawnWorker(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr!.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  return child;
}

function summarise(dir: string) {
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) {
    console.log(`\n${file}\n${summarizeProfile(path.join(dir, file))}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
