/**
 * Events → `sent` with screening on and off (docs/benchmarks.md "Screening"). Run:
 * `npm run bench:screening`.
 *
 * - Pending events inserted directly with their ingest jobs (as the accept path's group commit
 *   leaves them); one rule sends each on a `console` channel (stdout to /dev/null) to one of 1,000
 *   recipients. One event in five comes from an agent (`bench-bot`, no budget, no approval), so its
 *   message is screened when screening is on.
 * - The decision model is a local `http` server answering every screening after BENCH_MODEL_MS
 *   (200 ms) with a calm answer (every message passes).
 * - BENCH_WORKERS (2) worker processes running every queue with the default concurrency
 *   (screening 10). Each round runs BENCH_MESSAGES (5,000) events with screening off, then the
 *   same with it on, each with its own workers.
 * - Non-agent messages/s: backend messages / (last one sent − first event inserted). Agent
 *   messages/s: agent messages / (last one sent − first event inserted), screening included.
 * Targets: non-agent throughput with screening on ≥ 0.9 × off; agent messages screened ≥ 100/s.
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import type { Pool } from "pg";
import { newId } from "@svc/core";
import { createQueues, type Queues } from "@svc/queue";
import { deleteKeysStartingWith, startFakeModelServer, type FakeModelServer } from "@svc/testkit";
import { ACCEPT_BATCH, acceptShapedJobs } from "./lib/accept-shaped-jobs";
import { benchDatabases } from "./lib/bench-databases";
import { benchRecipients, insertRecipients } from "./lib/bench-recipients";
import { cpuSecondsOf, cpuSecondsOfCommand, startChild, stopAll, until } from "./lib/processes";
import { fmt, writeSection } from "./lib/results";
import { sentCount } from "./lib/sent-count";
import { median } from "./lib/wrk";

const ROOT = path.resolve(__dirname, "..");
const N = Number(process.env.BENCH_MESSAGES ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const MODEL_MS = Number(process.env.BENCH_MODEL_MS ?? 200);
const AGENT_EVERY = 5;
const RECIPIENTS = 1000;
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const REGISTER = path.join(ROOT, "scripts/register-ts.cjs");
const CALM = {
  urgency: { low: 0.1, normal: 0.8, high: 0.05, critical: 0.05 },
  pressure: 0.02,
  deception: 0.01,
  secret: 0.01,
};

interface Run {
  backendPerSecond: number;
  agentPerSecond: number;
  screened: number;
  /** Screening alone: a backlog of agent messages screened per second (screening on only). */
  screeningOnly: number | null;
  /** CPU seconds each side used during the mixed drain. */
  cpu: CpuSplit;
}

/** CPU seconds by process: svc's workers, Postgres, Redis, and this process (the model server). */
type CpuSplit = { workers: number; postgres: number; redis: number; model: number };
const CPU_SIDES = ["workers", "postgres", "redis", "model"] as const;

function cpuNow(workers: ChildProcess[]): CpuSplit {
  const own = process.cpuUsage();
  return {
    workers: workers.reduce((sum, w) => sum + cpuSecondsOf(w.pid!), 0),
    postgres: cpuSecondsOfCommand("postgres"),
    redis: cpuSecondsOfCommand("redis-server"),
    model: (own.user + own.system) / 1e6,
  };
}

const cpuSince = (before: CpuSplit, after: CpuSplit): CpuSplit =>
  Object.fromEntries(CPU_SIDES.map((side) => [side, after[side] - before[side]])) as CpuSplit;

async function setUp(pool: Pool): Promise<void> {
  await pool.query(`INSERT INTO templates (key, locales, updated_at) VALUES ('bench', $1, now())`, [
    JSON.stringify({ en: { title: "Order {{ data.order }}", body: "Order {{ data.order }} shipped." } }),
  ]);
  await pool.query(
    `INSERT INTO rules (key, event, template, category, channels, condition, digest, updated_at)
     VALUES ('bench-screening', 'bench.screening', 'bench', 'transactional', ARRAY['push'], NULL, NULL, now())`,
  );
  await pool.query(
    `INSERT INTO agents (key, name, description, frequency_caps, updated_at)
     VALUES ('bench-bot', 'Bench bot', 'Tells people their orders shipped', '[]', now())`,
  );
  await insertRecipients(pool, benchRecipients(RECIPIENTS));
}

let eventCounter = 0;
async function insertEvents(pool: Pool, queues: Queues, count: number, agentOnly = false): Promise<void> {
  const rows = Array.from({ length: count }, () => {
    const n = eventCounter++;
    const agent = agentOnly || n % AGENT_EVERY === 0 ? "bench-bot" : null;
    return {
      id: newId("event"),
      recipient: `bench-${n % RECIPIENTS}`,
      agent,
      data: JSON.stringify({ order: n }),
    };
  });
  await pool.query(
    `INSERT INTO events (id, name, source, sender, agent_key, recipient_external_id, data, created_at)
     SELECT id, 'bench.screening', 'api', coalesce(a, 'backend'), a, r, d::jsonb, clock_timestamp()
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(id, r, a, d)`,
    [rows.map((r) => r.id), rows.map((r) => r.recipient), rows.map((r) => r.agent), rows.map((r) => r.data)],
  );
  await queues.enqueueBulk(acceptShapedJobs(rows.map((r) => r.id)));
}

async function stats(pool: Pool, since: Date): Promise<Omit<Run, "screeningOnly" | "cpu">> {
  const { rows } = await pool.query(
    `SELECT (agent_key IS NOT NULL) AS agent, count(*)::int AS n,
            count(*) FILTER (WHERE screening IS NOT NULL)::int AS screened,
            extract(epoch FROM max(sent_at) - $1::timestamptz) * 1000 AS span_ms,
            count(*) FILTER (WHERE status NOT IN ('sent', 'delivered'))::int AS unsent
       FROM messages WHERE created_at >= $1 GROUP BY 1`,
    [since],
  );
  const of = (agent: boolean) => rows.find((r) => r.agent === agent)!;
  const rate = (r: { n: number; span_ms: string }) => (1000 * r.n) / Number(r.span_ms);
  if (rows.some((r) => r.unsent > 0)) throw new Error(`unsent messages: ${JSON.stringify(rows)}`);
  return { backendPerSecond: rate(of(false)), agentPerSecond: rate(of(true)), screened: of(true).screened };
}

// BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>" profiles the workers (as in bench/drain.ts).
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);

function startWorker(configFile: string, secretKey: string): ChildProcess {
  return startChild(
    [...NODE_ARGS, "-r", REGISTER, path.join(ROOT, "apps/worker/src/main.ts"), "--config", configFile],
    { SVC_SECRET_KEY: secretKey },
  );
}

async function run(
  pool: Pool,
  svcUrl: string,
  model: FakeModelServer,
  screening: boolean,
  round: number,
): Promise<Run> {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-screening-"));
  const configFile = path.join(dir, "svc.yaml");
  const prefix = `svc-bench-screening-${randomBytes(3).toString("hex")}-${round}-${screening ? "on" : "off"}`;
  writeFileSync(
    configFile,
    JSON.stringify({
      database: { url: svcUrl, auto_migrate: false },
      redis: { url: REDIS_URL, prefix },
      channels: { push: { provider: "console" } },
      screening: { enabled: screening, adapter: "http", url: model.url, model: "bench-judge" },
      log: { level: "warn" },
    }),
  );
  const queues = createQueues({ redisUrl: REDIS_URL, prefix });
  await queues.ready();
  const secretKey = randomBytes(32).toString("base64");
  const workers = Array.from({ length: WORKERS }, () => startWorker(configFile, secretKey));
  try {
    await until(
      async () => {
        if (workers.some((w) => w.exitCode !== null)) throw new Error("a worker exited");
        return (await queues.queue("screening").getWorkersCount()) >= WORKERS;
      },
      60_000,
      "workers",
    );
    const since = new Date();
    const cpuBefore = cpuNow(workers);
    await insertEvents(pool, queues, N);
    await until(async () => (await sentCount(pool, since)) >= N, 300_000, "drain");
    const cpu = cpuSince(cpuBefore, cpuNow(workers));
    const mixed = await stats(pool, since);
    return { ...mixed, cpu, screeningOnly: screening ? await screeningOnly(pool, queues, model) : null };
  } finally {
    await stopAll(workers);
    await queues.close();
    await deleteKeysStartingWith(REDIS_URL, `${prefix}:`);
  }
}

/**
 * Screening alone: with the screening queue paused, SCREEN_ONLY agent events are ingested and
 * handed to screening; then it is resumed, and the backlog's messages screened per second are
 * counted from the resume to the model's last answer.
 */
async function screeningOnly(pool: Pool, queues: Queues, model: FakeModelServer): Promise<number> {
  const count = Math.max(1, Math.round(N / AGENT_EVERY));
  const screeningQueue = queues.queue("screening");
  await screeningQueue.pause();
  const since = new Date();
  await insertEvents(pool, queues, count, true);
  await until(
    async () =>
      (
        await pool.query(
          `SELECT count(*)::int AS n FROM messages WHERE status = 'sending' AND lease_until IS NULL AND created_at >= $1`,
          [since],
        )
      ).rows[0].n >= count,
    300_000,
    "hand-offs",
  );
  const calls = model.calls.length;
  const resumedAt = Date.now();
  await screeningQueue.resume();
  await until(async () => (await sentCount(pool, since)) >= count, 300_000, "screening backlog");
  const asked = model.calls.slice(calls);
  return (1000 * asked.length) / (asked.at(-1)!.at + MODEL_MS - resumedAt);
}

const cpuTotal = (run: Run) => CPU_SIDES.reduce((sum, side) => sum + run.cpu[side], 0);

/** One table row: each side's median CPU, scaled by `per`, in ms. */
function cpuRow(runs: Run[], per: (seconds: number) => number): string {
  const cells = CPU_SIDES.map((side) => fmt(per(median(runs.map((r) => r.cpu[side]))) * 1000, 2));
  return [...cells, fmt(per(median(runs.map(cpuTotal))) * 1000, 2)].join(" | ");
}

async function main() {
  const databases = await benchDatabases("screening", 4);
  const model = await startFakeModelServer(() => ({ json: CALM, delayMs: MODEL_MS }));
  const off: Run[] = [];
  const on: Run[] = [];
  const load = [loadavg()[0]!];
  try {
    await setUp(databases.svcPool);
    for (let round = 0; round < ROUNDS; round++) {
      const a = await run(databases.svcPool, databases.svcUrl, model, false, round);
      off.push(a);
      const b = await run(databases.svcPool, databases.svcUrl, model, true, round);
      on.push(b);
      load.push(loadavg()[0]!);
      console.log(
        `round ${round + 1}: off backend ${fmt(a.backendPerSecond)}/s agent ${fmt(a.agentPerSecond)}/s; ` +
          `on backend ${fmt(b.backendPerSecond)}/s agent ${fmt(b.agentPerSecond)}/s (screened ${b.screened}); screening alone ${fmt(b.screeningOnly ?? 0)}/s`,
      );
    }
  } finally {
    await model.close();
    await databases.drop();
  }
  const m = (runs: Run[], key: "backendPerSecond" | "agentPerSecond") => median(runs.map((r) => r[key]));
  const ratio = m(on, "backendPerSecond") / m(off, "backendPerSecond");
  const agentRate = m(on, "agentPerSecond");
  const screeningRate = median(on.map((r) => r.screeningOnly ?? 0));
  const table = `
## Screening

${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Postgres and Redis on the same machine;
load average (1 min) ${load.map((l) => fmt(l, 1)).join(" → ")} over the run (a shared machine).
${ROUNDS} rounds of ${fmt(N)} events, medians; ${WORKERS} worker processes running every queue with the default concurrency
(screening 10; a screening job screens up to 20 messages side by side).

- Pending events inserted directly with their ingest jobs (one \`ingest-events\` job per ${ACCEPT_BATCH} events); one
  rule sends each on a \`console\` channel to one of 1,000 recipients. One event in ${AGENT_EVERY} comes from an agent.
- Screening on: \`http\` adapter against a local model server answering each message after ${MODEL_MS} ms (every
  message passes). Off: the same events, nothing screened.
- Mixed drain rate: messages of the kind / (last of them \`sent\` − first event inserted).
- Screening alone (screening on): the screening queue paused, ${fmt(Math.round(N / AGENT_EVERY))} agent events ingested
  and handed to screening, then resumed: messages screened / (model's last answer − resume).

| | Backend messages/s (mixed) | Agent messages/s (mixed, screened and sent) | Screening alone, messages/s |
|---|---|---|---|
| screening off | ${fmt(m(off, "backendPerSecond"))} | ${fmt(m(off, "agentPerSecond"))} | – |
| screening on | ${fmt(m(on, "backendPerSecond"))} | ${fmt(agentRate)} | ${fmt(screeningRate)} |

Targets: backend throughput with screening on ≥ 0.9 × off: **${ratio >= 0.9 ? "met" : "not met"}** (${fmt(ratio, 2)});
agent messages screened ≥ 100/s with the default concurrency: **${screeningRate >= 100 ? "met" : "not met"}**
(${fmt(screeningRate)}/s screening alone; in the mixed drain agent messages arrive at a fifth of its rate).
Rounds, backend off/on: ${off.map((r, i) => `${fmt(r.backendPerSecond)}/${fmt(on[i]!.backendPerSecond)}`).join(", ")}.

CPU during the mixed drain (medians, ms): per message with screening off, and what screening added
per agent message ((on − off) / ${fmt(Math.round(N / AGENT_EVERY))}). "Model" is the bench process, almost all of it the local
model server answering.

| | ${CPU_SIDES.join(" | ")} | all |
|---|${CPU_SIDES.map(() => "---|").join("")}---|
| per message, screening off | ${cpuRow(off, (c) => c / N)} |
| added per agent message | ${CPU_SIDES.map((side) => fmt(((median(on.map((r) => r.cpu[side])) - median(off.map((r) => r.cpu[side]))) * 1000) / (N / AGENT_EVERY), 2)).join(" | ")} | ${fmt(((median(on.map(cpuTotal)) - median(off.map(cpuTotal))) * 1000) / (N / AGENT_EVERY), 2)} |
`;
  console.log(table);
  if (process.env.BENCH_WRITE !== "0") writeSection("screening", table);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
