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
 * - burst: N events at once, messages/s = N / (last sent - first insert), after an unmeasured burst
 *   of 1,000 (svc before its first round, the chain every round: its processes start per round).
 *   paced: events at half the burst rate for BENCH_PACED_SECONDS; event-to-sent latency p50/p99
 *   come from this phase.
 * - delivery only: messages due 1 s after their event (so not inline) wait in the paused delivery
 *   queue until ingest queued every one, then it is resumed:
 *   queued → sent per second (the delivery stage alone).
 * - rates: svc and the chain at the same fixed rates (BENCH_RATES, default 200,500,1000 events/s, for
 *   BENCH_RATE_SECONDS, default 20, after a 3 s warm-up): event → sent p50/p95/p99 of both.
 * - shapes: bursts of BENCH_SHAPE_MESSAGES (default 2,000) of each common shape (stored people on the
 *   console channel, inline profiles of new and known people, direct sends through an API process,
 *   the webhook channel to a local sink), BENCH_SHAPE_REPEATS (default 2) times per round after one
 *   unmeasured pass, beside the chain's burst of the same round. Direct sends
 *   come from BENCH_DIRECT_CLIENTS (default 16) clients, each waiting for its answer, on undici's
 *   `request` (a fifth of `fetch`'s CPU per request, so the load generator takes little of the two
 *   cores it shares with svc: `npm run bench:http-client`).
 * - webhooks: bursts of N events without webhook endpoints, then with one endpoint subscribed to
 *   message.sent and message.failed posting to a local sink (docs/webhooks.md), on the same
 *   workers (which then run the callbacks queue, hence the outbox relay, and the webhooks queue):
 *   the drain with the endpoint over the drain without, and when the last webhook arrived.
 * BENCH_PHASES picks phases (default burst,rates,shapes; add webhooks); BENCH_SHAPES picks shapes by words of
 * their names (e.g. stored,direct); BENCH_VERBOSE also prints the API's CPU per direct send;
 * with the direct shape, BENCH_DIRECT_RATE (default 500) sends/s for BENCH_DIRECT_RATE_SECONDS (10)
 * measure the response time, and issue 31's three targets are printed for the run;
 * BENCH_API_ARGS="--cpu-prof --cpu-prof-dir=<dir>" profiles the API; BENCH_ONLY=svc skips the chain;
 * BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>" profiles the svc workers.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "pg";
import { Queue } from "bullmq";
import { request } from "undici";
import { newId } from "@svc/core";
import { createApiKey } from "@svc/engine";
import { createQueues, type Queues } from "@svc/queue";
import { createPrisma } from "@svc/store";
import { ACCEPT_BATCH, acceptShapedJobs } from "./lib/accept-shaped-jobs";
import { benchDatabases } from "./lib/bench-databases";
import { benchRecipients, insertRecipients } from "./lib/bench-recipients";
import { insertDrainTemplateAndRule } from "./lib/bench-rules";
import { CpuSampler, startChild, startNode, stopAll, until } from "./lib/processes";
import { fmt, writeSection } from "./lib/results";
import { sentCount } from "./lib/sent-count";
import { median } from "./lib/wrk";

const ROOT = path.resolve(__dirname, "..");
const N = Number(process.env.BENCH_MESSAGES ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 5);
// Fixed-rate mode: the same rates for svc and the chain, event → sent latency at equal load.
const RATES = (process.env.BENCH_RATES ?? "200,500,1000").split(",").filter(Boolean).map(Number);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 20);
const WARM_UP_SECONDS = 3;
const DIRECT_CLIENTS = Number(process.env.BENCH_DIRECT_CLIENTS ?? 16);
// Direct sends at a fixed rate (issue 31's latency target): response time p50/p99, open loop.
const DIRECT_RATE = Number(process.env.BENCH_DIRECT_RATE ?? 500);
const DIRECT_RATE_SECONDS = Number(process.env.BENCH_DIRECT_RATE_SECONDS ?? 10);
// Which phases run: burst (with paced and delivery only), rates (fixed-rate latency).
const PHASES = new Set((process.env.BENCH_PHASES ?? "burst,rates,shapes").split(","));
// Shapes: each a burst of this many messages, beside stored recipients on the console channel.
const SHAPE_N = Number(process.env.BENCH_SHAPE_MESSAGES ?? 2000);
/** Passes over every shape per round: a burst of 2,000 lasts about a second, so one is noisy. */
const SHAPE_REPEATS = Number(process.env.BENCH_SHAPE_REPEATS ?? 2);
const SHAPES = [
  "stored, console",
  "inline profile, new people",
  "inline profile, existing people",
  "direct sends (POST /v1/messages)",
  "webhook channel (local sink)",
] as const;
type ShapeName = (typeof SHAPES)[number];
// BENCH_SHAPES=stored,direct runs only the shapes whose names contain one of these words.
const SHAPE_FILTER = (process.env.BENCH_SHAPES ?? "").split(",").filter(Boolean);
const shapeRuns = (shape: ShapeName) =>
  SHAPE_FILTER.length === 0 || SHAPE_FILTER.some((w) => shape.includes(w));
const RECIPIENTS = 1000;
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const REGISTER = path.join(ROOT, "scripts/register-ts.cjs");

interface Run {
  perSecond: number;
  p50: number;
  p95: number;
  p99: number;
}

// ---- svc -------------------------------------------------------------------------------------

interface WebhookRun {
  without: number;
  with: number;
  /** Webhooks succeeded per second: deliveries / (last delivered − first event inserted). */
  webhooksPerSecond: number;
  /** Message `sent_at` → its webhook's `delivered_at`, p50 and p99 (ms). */
  lagP50: number;
  lagP99: number;
  /** CPU ms per message, from the first insert until the burst's work was done (webhooks included). */
  cpuWithout: CpuPerMessage;
  cpuWith: CpuPerMessage;
}

/** CPU ms per message: svc's worker processes, the database's Postgres backends, this process (the sink). */
interface CpuPerMessage {
  workers: number;
  postgres: number;
  bench: number;
}

/** Starts counting CPU; `per(n)` is the CPU ms per message of `n` since then. */
function cpuMeter(workerPids: readonly number[], dbName: string) {
  const backends = new CpuSampler("postgres", ` ${dbName} `);
  const workers = () => workerPids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  const bench = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  const start = { workers: workers(), bench: bench() };
  return (n: number): CpuPerMessage => {
    const result = {
      workers: (workers() - start.workers) / n,
      postgres: (backends.total() * 1000) / n,
      bench: (bench() - start.bench) / n,
    };
    backends.stop();
    return result;
  };
}

/** A burst without endpoints, then one with an endpoint on message.sent and message.failed. */
async function runWebhooks(
  pool: Pool,
  queues: Queues,
  sinkUrl: string,
  cpu: { workerPids: readonly number[]; dbName: string },
  n = N,
): Promise<WebhookRun> {
  let since = new Date();
  let meter = cpuMeter(cpu.workerPids, cpu.dbName);
  await insertEvents(pool, queues, n);
  await until(async () => (await sentCount(pool, since)) >= n, 300_000, "svc burst without endpoints");
  const cpuWithout = meter(n);
  const without = (await svcStats(pool, since, "event")).perSecond;
  const endpointId = newId("webhook");
  await pool.query(
    `INSERT INTO webhook_endpoints (id, url, events, secret_salt) VALUES ($1, $2, ARRAY['message.sent', 'message.failed'], 'bench-salt')`,
    [endpointId, sinkUrl],
  );
  try {
    since = new Date();
    meter = cpuMeter(cpu.workerPids, cpu.dbName);
    await insertEvents(pool, queues, n);
    await until(async () => (await sentCount(pool, since)) >= n, 300_000, "svc burst with an endpoint");
    const withEndpoint = (await svcStats(pool, since, "event")).perSecond;
    await until(
      async () =>
        (
          await pool.query(
            `SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'succeeded'`,
            [endpointId],
          )
        ).rows[0].n >= n,
      300_000,
      "webhooks delivered",
    );
    const cpuWith = meter(n);
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n,
              extract(epoch FROM max(d.delivered_at) - $2::timestamptz) * 1000 AS span_ms,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM d.delivered_at - m.sent_at) * 1000) AS p50,
              percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM d.delivered_at - m.sent_at) * 1000) AS p99
         FROM webhook_deliveries d JOIN messages m ON m.id = d.body::jsonb->'data'->>'id'
        WHERE d.endpoint_id = $1`,
      [endpointId, since],
    );
    return {
      without,
      with: withEndpoint,
      webhooksPerSecond: (1000 * rows[0].n) / Number(rows[0].span_ms),
      lagP50: Number(rows[0].p50),
      lagP99: Number(rows[0].p99),
      cpuWithout,
      cpuWith,
    };
  } finally {
    await pool.query(`DELETE FROM webhook_endpoints WHERE id = $1`, [endpointId]);
  }
}

async function setUpSvc(pool: Pool): Promise<void> {
  await insertDrainTemplateAndRule(pool);
  // For the delivery-only phase: due a second later, so every message waits in the delivery queue.
  await pool.query(
    `INSERT INTO rules (key, event, template, category, channels, condition, digest, delay_seconds, updated_at)
     VALUES ('bench-drain-later', 'bench.later', 'bench', 'transactional', ARRAY['push'], NULL, NULL, 1, now())`,
  );
  // Shapes: the webhook channel, and inline profiles on the same push channel.
  await pool.query(
    `INSERT INTO rules (key, event, template, category, channels, condition, digest, updated_at)
     VALUES ('bench-hook', 'bench.hook', 'bench', 'transactional', ARRAY['hook'], NULL, NULL, now())`,
  );
  await insertRecipients(pool, benchRecipients(RECIPIENTS), ["push", "hook"]);
}

/** The shape of the events a phase inserts: stored people, or an inline profile (new or known people). */
type EventShape = "stored" | "profile-new" | "profile-existing";

let eventCounter = 0;
async function insertEvents(
  pool: Pool,
  queues: Queues,
  count: number,
  name = "bench.drain",
  shape: EventShape = "stored",
): Promise<void> {
  const rows = Array.from({ length: count }, () => {
    const n = eventCounter++;
    const recipient = shape === "profile-new" ? `new-${n}` : `bench-${n % RECIPIENTS}`;
    // The "identify on trigger" shape: locale, attributes and the device with every event.
    const profile =
      shape === "stored"
        ? null
        : JSON.stringify({
            locale: "en",
            attributes: { plan: "pro", seen: n },
            addresses: [
              { channel: "push", value: `device-${recipient}` },
              { channel: "hook", value: `device-${recipient}` },
            ],
          });
    return { id: newId("event"), recipient, data: JSON.stringify({ order: n }), profile };
  });
  await pool.query(
    `INSERT INTO events (id, name, source, sender, recipient_external_id, data, recipient_profile, created_at)
     SELECT id, $5, 'api', 'backend', r, d::jsonb, p::jsonb, clock_timestamp()
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(id, r, d, p)`,
    [
      rows.map((r) => r.id),
      rows.map((r) => r.recipient),
      rows.map((r) => r.data),
      rows.map((r) => r.profile),
      name,
    ],
  );
  await queues.enqueueBulk(acceptShapedJobs(rows.map((r) => r.id)));
}

async function svcStats(
  pool: Pool,
  since: Date,
  from: "event" | "queued",
  startedAt?: Date,
): Promise<Run & { failed: number; ingestP50: number; ingestP99: number }> {
  const { rows } = await pool.query(
    `SELECT count(*) FILTER (WHERE m.status NOT IN ('sent', 'delivered'))::int AS failed,
            extract(epoch FROM max(m.sent_at) - $2::timestamptz) * 1000 AS span_ms,
            count(*)::int AS n,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM m.sent_at - e.created_at) * 1000) AS p50,
            percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM m.sent_at - e.created_at) * 1000) AS p95,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM m.sent_at - e.created_at) * 1000) AS p99,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM m.created_at - e.created_at) * 1000) AS ingest_p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM m.created_at - e.created_at) * 1000) AS ingest_p99
       FROM messages m JOIN events e ON e.id = m.event_id WHERE e.created_at >= $1`,
    [since, from === "queued" ? startedAt : since],
  );
  const r = rows[0];
  return {
    perSecond: (1000 * r.n) / Number(r.span_ms),
    p50: Number(r.p50),
    p95: Number(r.p95),
    p99: Number(r.p99),
    failed: r.failed,
    ingestP50: Number(r.ingest_p50),
    ingestP99: Number(r.ingest_p99),
  };
}

/** Items of the unmeasured burst before the first measured one: fresh processes run cold (JIT, pools). */
const WARM_UP_BURST = 1000;

async function runSvc(
  pool: Pool,
  queues: Queues,
  warmUp: boolean,
): Promise<{ burst: Run; paced: Run; deliveryOnly: number }> {
  let since = new Date();
  if (warmUp) {
    await insertEvents(pool, queues, WARM_UP_BURST);
    await until(async () => (await sentCount(pool, since)) >= WARM_UP_BURST, 300_000, "svc warm-up");
    since = new Date();
  }
  // burst
  await insertEvents(pool, queues, N);
  await until(async () => (await sentCount(pool, since)) >= N, 300_000, "svc burst");
  const burst = await svcStats(pool, since, "event");
  // paced, at half the burst rate
  since = new Date();
  const pacedCount = await addPaced(burst.perSecond / 2, PACED_SECONDS, (count) =>
    insertEvents(pool, queues, count),
  );
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

/** Messages created since `since` and sent, per second up to the last `sent_at` (and whether all `count` are). */
async function drainRate(pool: Pool, since: Date, count: number, what: string): Promise<number> {
  await until(
    async () => {
      const { rows } = await pool.query(
        `SELECT status, status_reason, count(*)::int AS n FROM messages WHERE created_at >= $1 GROUP BY 1, 2`,
        [since],
      );
      const done = rows.filter((r) => !["queued", "sending"].includes(r.status as string));
      if (done.reduce((sum, r) => sum + (r.n as number), 0) < count) return false;
      const failed = done.filter((r) => !["sent", "delivered"].includes(r.status as string));
      if (failed.length > 0) throw new Error(`${what}: ${JSON.stringify(failed)}`);
      return true;
    },
    300_000,
    what,
  );
  const { rows } = await pool.query(
    `SELECT count(*)::int AS n, extract(epoch FROM max(sent_at) - $1::timestamptz) * 1000 AS span_ms
       FROM messages WHERE created_at >= $1 AND status IN ('sent', 'delivered')`,
    [since],
  );
  return (1000 * rows[0].n) / Number(rows[0].span_ms);
}

interface DirectSender {
  url: string;
  key: string;
  /** The API process, whose CPU time per send is reported (Linux /proc). */
  pid?: number;
}

/** User + system CPU milliseconds the process has used so far (0 where /proc is missing). */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in 1/100 s
  } catch {
    return 0;
  }
}

/** Each shape as a burst of SHAPE_N messages, one after the other (messages/s). */
async function runShapes(
  pool: Pool,
  queues: Queues,
  direct: DirectSender,
): Promise<Record<ShapeName, number>> {
  const burst = async (shape: ShapeName, send: () => Promise<void>) => {
    if (!shapeRuns(shape)) return Number.NaN;
    const since = new Date();
    await send();
    if (process.env.BENCH_VERBOSE)
      console.log(`  ${shape}: ${fmt((1000 * SHAPE_N) / (Date.now() - since.getTime()))}/s entered`);
    return drainRate(pool, since, SHAPE_N, shape);
  };
  const result = {} as Record<ShapeName, number>;
  if (process.env.BENCH_HOOK_FIRST && shapeRuns("webhook channel (local sink)"))
    await burst("webhook channel (local sink)", () => insertEvents(pool, queues, SHAPE_N, "bench.hook"));
  result["stored, console"] = await burst("stored, console", () => insertEvents(pool, queues, SHAPE_N));
  result["inline profile, new people"] = await burst("inline profile, new people", () =>
    insertEvents(pool, queues, SHAPE_N, "bench.drain", "profile-new"),
  );
  result["inline profile, existing people"] = await burst("inline profile, existing people", () =>
    insertEvents(pool, queues, SHAPE_N, "bench.drain", "profile-existing"),
  );
  result["direct sends (POST /v1/messages)"] = await burst("direct sends (POST /v1/messages)", () =>
    postMessages(direct, SHAPE_N),
  );
  result["webhook channel (local sink)"] = await burst("webhook channel (local sink)", () =>
    insertEvents(pool, queues, SHAPE_N, "bench.hook"),
  );
  return result;
}

/** API CPU per direct send of each burst POSTed while `measuring` (the unmeasured first pass is not). */
const directCpu = { measuring: false, perSend: [] as number[] };

async function postMessage({ url, key }: DirectSender, n: number): Promise<void> {
  const response = await request(`${url}/v1/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      recipient: `bench-${n % RECIPIENTS}`,
      template: "bench",
      category: "transactional",
      channels: ["push"],
      data: { order: n },
    }),
  });
  const text = await response.body.text();
  if (response.statusCode !== 202) throw new Error(`POST /v1/messages: ${response.statusCode} ${text}`);
}

/** POSTs `count` direct sends from DIRECT_CLIENTS concurrent clients. */
async function postMessages(direct: DirectSender, count: number): Promise<void> {
  const cpuBefore = cpuMs(direct.pid);
  let next = 0;
  const client = async () => {
    while (next < count) await postMessage(direct, next++);
  };
  await Promise.all(Array.from({ length: DIRECT_CLIENTS }, client));
  const perSend = (cpuMs(direct.pid) - cpuBefore) / count;
  if (directCpu.measuring) directCpu.perSend.push(perSend);
  console.log(`  direct sends: API process CPU ${perSend.toFixed(2)} ms per send`);
}

interface DirectAtRate {
  rate: number;
  p50: number;
  p99: number;
  cpuPerSend: number;
}

/**
 * Direct sends at `rate` per second for `seconds`, open loop (a send is due at its slot whether or
 * not earlier ones answered), 10 slots' worth every 20 ms: the response time of each from its due
 * time, so a stall is charged to every send it delays.
 */
async function postMessagesAtRate(
  direct: DirectSender,
  rate: number,
  seconds: number,
): Promise<DirectAtRate> {
  const cpuBefore = cpuMs(direct.pid);
  const total = Math.round(rate * seconds);
  const start = performance.now();
  const times: number[] = [];
  const sends: Promise<void>[] = [];
  for (let n = 0; n < total; n++) {
    const due = start + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 20) await sleep(wait);
    sends.push(postMessage(direct, 1_000_000 + n).then(() => void times.push(performance.now() - due)));
  }
  await Promise.all(sends);
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { rate, p50: at(0.5), p99: at(0.99), cpuPerSend: (cpuMs(direct.pid) - cpuBefore) / total };
}

/** svc at `rate` events/s for RATE_SECONDS: event `created_at` → `sent_at`. */
async function svcAtRate(pool: Pool, queues: Queues, rate: number, seconds = RATE_SECONDS): Promise<Run> {
  const since = new Date();
  const count = await addPaced(rate, seconds, (n) => insertEvents(pool, queues, n));
  await until(async () => (await sentCount(pool, since)) >= count, 120_000, `svc at ${rate}/s`);
  const stats = await svcStats(pool, since, "event");
  if (process.env.BENCH_VERBOSE)
    console.log(
      `  svc at ${rate}/s: event → message row p50 ${fmt(stats.ingestP50)} ms p99 ${fmt(stats.ingestP99)} ms`,
    );
  return { ...stats, perSecond: rate };
}

/** Calls `add(k)` every 20 ms so `rate` items per second go in for `seconds`; returns how many. */
async function addPaced(
  rate: number,
  seconds: number,
  add: (count: number) => Promise<void>,
): Promise<number> {
  const start = Date.now();
  let added = 0;
  while (Date.now() - start < seconds * 1000) {
    const due = Math.floor(((Date.now() - start) / 1000) * rate) - added;
    if (due > 0) {
      await add(due);
      added += due;
    }
    await sleep(20);
  }
  return added;
}

const latencies = (r: Run) => `p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms, p99 ${fmt(r.p99)} ms`;
const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

async function messagesKey(databaseUrl: string): Promise<string> {
  const prisma = createPrisma({ databaseUrl });
  try {
    const created = await createApiKey(
      { prisma, now: () => new Date() },
      { name: "bench-drain", scopes: ["messages:write"] },
    );
    return created.key;
  } finally {
    await prisma.$disconnect();
  }
}

// ---- bare chain --------------------------------------------------------------------------------

async function runChain(
  pool: Pool,
  first: Queue,
  last: Queue,
  rates: number[],
): Promise<{ burst?: Run; paced?: Run; atRate: Run[] }> {
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
    return {
      perSecond: (1000 * count) / (end - startedAt),
      p50: pick(0.5),
      p95: pick(0.95),
      p99: pick(0.99),
    };
  };
  const result: { burst?: Run; paced?: Run; atRate: Run[] } = { atRate: [] };
  if (PHASES.has("burst") || PHASES.has("shapes")) {
    // Its processes were started for this round: warm them up first, as svc's.
    await add(WARM_UP_BURST);
    await measure(WARM_UP_BURST, Date.now());
    let start = Date.now();
    await add(N);
    result.burst = await measure(N, start);
    start = Date.now();
    const count = await addPaced(result.burst.perSecond / 2, PACED_SECONDS, add);
    result.paced = await measure(count, start);
  }
  if (rates.length > 0) {
    const warmUp = await addPaced(rates[0]!, WARM_UP_SECONDS, add);
    await measure(warmUp, Date.now());
  }
  for (const rate of rates) {
    const start = Date.now();
    const count = await addPaced(rate, RATE_SECONDS, add);
    result.atRate.push({ ...(await measure(count, start)), perSecond: rate });
  }
  return result;
}

// ---- main --------------------------------------------------------------------------------------

async function main() {
  const databases = await benchDatabases("drain", 4);
  const { tag, svcUrl: svcDb, chainUrl: chainDb, svcPool, chainPool } = databases;
  await chainPool.query(
    `CREATE TABLE IF NOT EXISTS bench_items (id text PRIMARY KEY, step int NOT NULL DEFAULT -1, sent_at timestamptz)`,
  );
  await setUpSvc(svcPool);

  // The webhook channel's receiver: answers every POST with 200 at once.
  const sink = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  const sinkPort = (sink.address() as AddressInfo).port;

  const dir = mkdtempSync(path.join(tmpdir(), "svc-drain-"));
  const configFile = path.join(dir, "svc.yaml");
  const svcPrefix = `svc-bench-drain-${tag}`;
  writeFileSync(
    configFile,
    JSON.stringify({
      database: { url: svcDb, auto_migrate: false },
      redis: { url: REDIS_URL, prefix: svcPrefix },
      channels: {
        push: { provider: "console" },
        hook: {
          provider: "webhook",
          url: `http://127.0.0.1:${sinkPort}/hook`,
          secret_env: "BENCH_HOOK_SECRET",
        },
      },
      log: { level: "warn" },
      // The webhooks phase posts to the local sink.
      webhooks: { allow_private_urls: true },
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
        BENCH_HOOK_SECRET: "bench",
      },
    );
  // BENCH_DELIVERY_PROF=<dir>: delivery runs in one extra process of its own, CPU-profiled there.
  const profileDir = process.env.BENCH_DELIVERY_PROF;
  const svcWorkers = Array.from({ length: WORKERS }, () =>
    worker(
      `${profileDir ? "ingest,policy,scheduler" : "ingest,policy,delivery,scheduler"}${PHASES.has("webhooks") ? ",callbacks,webhooks" : ""}`,
      nodeArgs,
    ),
  );
  if (profileDir) svcWorkers.push(worker("delivery", ["--cpu-prof", `--cpu-prof-dir=${profileDir}`]));
  const chainPrefix = `svc-bench-chain-${tag}`;
  const chainQueues = ["chain-a", "chain-b", "chain-c"].map(
    (name) => new Queue(name, { connection: { url: REDIS_URL }, prefix: chainPrefix }),
  );
  // Direct sends go through the API (from source, workers not embedded), with a key made here.
  const apiPort = 20_000 + Math.floor(Math.random() * 10_000);
  const api = PHASES.has("shapes")
    ? await startNode(
        path.join(ROOT, "apps/api/src/main.ts"),
        [],
        {
          SVC_CONFIG: configFile,
          SVC_SECRET_KEY: secretKey,
          BENCH_HOOK_SECRET: "bench",
          PORT: String(apiPort),
          SVC__WORKER__EMBEDDED: "false",
          SVC__API__RATE_LIMIT__ENABLED: "false",
        },
        `http://127.0.0.1:${apiPort}/readyz`,
        // BENCH_API_ARGS="--cpu-prof --cpu-prof-dir=<dir>" profiles the API process.
        [...(process.env.BENCH_API_ARGS ?? "").split(" ").filter(Boolean), "-r", REGISTER],
      )
    : null;
  const direct = { url: `http://127.0.0.1:${apiPort}`, key: await messagesKey(svcDb), pid: api?.pid };
  const results = {
    shapes: [] as Record<ShapeName, number>[],
    svc: [] as Run[],
    svcPaced: [] as Run[],
    deliveryOnly: [] as number[],
    update: [] as Run[],
    updatePaced: [] as Run[],
    noupdate: [] as Run[],
    noupdatePaced: [] as Run[],
    svcRates: [] as Run[][],
    chainRates: [] as Run[][],
    webhooks: [] as WebhookRun[],
    directAtRate: [] as DirectAtRate[],
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
      if (PHASES.has("burst")) {
        const svc = await runSvc(svcPool, queues, round === 0);
        results.svc.push(svc.burst);
        results.svcPaced.push(svc.paced);
        results.deliveryOnly.push(svc.deliveryOnly);
        console.log(
          `round ${round + 1} svc: ${fmt(svc.burst.perSecond)} msg/s, paced p50 ${fmt(svc.paced.p50)} ms p99 ${fmt(svc.paced.p99)} ms, delivery only ${fmt(svc.deliveryOnly)} msg/s`,
        );
      }
      if (PHASES.has("webhooks")) {
        const cpu = {
          workerPids: svcWorkers.map((w) => w.pid!),
          dbName: new URL(svcDb).pathname.slice(1),
        };
        // The first bursts after the workers start run cold (JIT, pools; the webhook path's HTTP
        // client too, whose first thousand POSTs cost several times the later ones): unmeasured.
        if (round === 0)
          await runWebhooks(svcPool, queues, `http://127.0.0.1:${sinkPort}/webhooks`, cpu, WARM_UP_BURST);
        const run = await runWebhooks(svcPool, queues, `http://127.0.0.1:${sinkPort}/webhooks`, cpu);
        results.webhooks.push(run);
        console.log(
          `round ${round + 1} webhooks: without ${fmt(run.without)} msg/s, with ${fmt(run.with)} msg/s (${fmt(run.with / run.without, 2)}), webhooks ${fmt(run.webhooksPerSecond)}/s, sent → received p50 ${fmt(run.lagP50)} ms p99 ${fmt(run.lagP99)} ms; CPU ms/msg without ${cpuText(run.cpuWithout)}, with ${cpuText(run.cpuWith)}`,
        );
      }
      const rates = PHASES.has("rates") ? RATES : [];
      const svcRates: Run[] = [];
      // Warm up first (JIT, pools, caches), unmeasured, as the chain does below.
      if (rates.length > 0) await svcAtRate(svcPool, queues, rates[0]!, WARM_UP_SECONDS);
      for (const rate of rates) {
        const run = await svcAtRate(svcPool, queues, rate);
        svcRates.push(run);
        console.log(`round ${round + 1} svc at ${rate}/s: ${latencies(run)} (uptime: ${loadAverage()})`);
      }
      if (rates.length > 0) results.svcRates.push(svcRates);
      if (PHASES.has("shapes")) {
        // The first bursts after the workers (and the API) start run cold (JIT, pools): unmeasured.
        if (round === 0) await runShapes(svcPool, queues, direct);
        directCpu.measuring = true;
        for (let repeat = 0; repeat < SHAPE_REPEATS; repeat++) {
          const shapes = await runShapes(svcPool, queues, direct);
          results.shapes.push(shapes);
          for (const shape of SHAPES)
            console.log(
              `round ${round + 1}.${repeat + 1} svc ${shape}: ${fmt(shapes[shape])} msg/s (uptime: ${loadAverage()})`,
            );
        }
        directCpu.measuring = false;
        if (shapeRuns("direct sends (POST /v1/messages)") && DIRECT_RATE > 0) {
          const since = new Date();
          const atRate = await postMessagesAtRate(direct, DIRECT_RATE, DIRECT_RATE_SECONDS);
          await drainRate(svcPool, since, Math.round(DIRECT_RATE * DIRECT_RATE_SECONDS), "direct at rate");
          results.directAtRate.push(atRate);
          console.log(
            `round ${round + 1} svc direct sends at ${DIRECT_RATE}/s: response p50 ${fmt(atRate.p50, 1)} ms p99 ${fmt(atRate.p99, 1)} ms, API CPU ${atRate.cpuPerSend.toFixed(2)} ms per send (uptime: ${loadAverage()})`,
          );
        }
      }
      const modes = process.env.BENCH_ONLY === "svc" ? [] : (["update", "noupdate"] as const);
      for (const mode of modes) {
        if (mode === "noupdate" && !PHASES.has("burst")) continue;
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
          const run = await runChain(
            chainPool,
            chainQueues[0]!,
            chainQueues[2]!,
            mode === "update" ? rates : [],
          );
          if (run.burst && run.paced) {
            results[mode].push(run.burst);
            results[`${mode}Paced`].push(run.paced);
            console.log(
              `round ${round + 1} chain ${mode}: ${fmt(run.burst.perSecond)} items/s, paced p50 ${fmt(run.paced.p50)} ms p99 ${fmt(run.paced.p99)} ms`,
            );
          }
          run.atRate.forEach((r) =>
            console.log(
              `round ${round + 1} chain at ${r.perSecond}/s: ${latencies(r)} (uptime: ${loadAverage()})`,
            ),
          );
          if (run.atRate.length > 0) results.chainRates.push(run.atRate);
        } finally {
          await stopAll(chain);
        }
      }
    }
  } finally {
    await stopAll(api ? [...svcWorkers, api] : svcWorkers);
    sink.close();
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
- Messages/s: burst of ${fmt(N)} items, count / (last finished − first inserted), each side warmed
  up first by an unmeasured burst of ${fmt(WARM_UP_BURST)}. Latency: items
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
  const write = process.env.BENCH_ONLY !== "svc" && process.env.BENCH_WRITE !== "0";
  if (PHASES.has("burst")) {
    console.log(table);
    if (write) writeSection("delivery-drain", table);
  }
  if (results.shapes.length > 0) {
    const shapes = shapesTable(results.shapes, results.update);
    console.log(shapes);
    if (write) writeSection("delivery-shapes", shapes);
  }
  if (directCpu.perSend.length > 0) console.log(directTargets(results.shapes, results.directAtRate));
  if (results.webhooks.length > 0) {
    const webhooks = webhooksTable(results.webhooks);
    console.log(webhooks);
    if (process.env.BENCH_WRITE !== "0") writeSection("webhooks-drain", webhooks);
  }
  if (results.svcRates.length > 0) {
    const latency = latencyTable(results.svcRates, results.chainRates);
    console.log(latency);
    if (write) writeSection("delivery-latency", latency);
  }
}

/** Issue 31's three targets for direct sends, from this run. */
function directTargets(runs: Record<ShapeName, number>[], atRate: DirectAtRate[]): string {
  const cpu = median(directCpu.perSend);
  const ratio = median(runs.map((r) => r["direct sends (POST /v1/messages)"] / r["stored, console"]));
  const p99 = atRate.length > 0 ? median(atRate.map((r) => r.p99)) : Number.NaN;
  const p50 = atRate.length > 0 ? median(atRate.map((r) => r.p50)) : Number.NaN;
  const rateCpu = atRate.length > 0 ? median(atRate.map((r) => r.cpuPerSend)) : Number.NaN;
  const verdict = (ok: boolean) => (ok ? "met" : "not met");
  return `
Direct sends, this run (medians): API CPU ${cpu.toFixed(2)} ms per send in the bursts (target ≤ 0.35: ${verdict(cpu <= 0.35)});
direct ${fmt(ratio, 2)} × stored with ${DIRECT_CLIENTS} clients (target ≥ 0.6: ${verdict(ratio >= 0.6)});
at ${DIRECT_RATE} sends/s for ${DIRECT_RATE_SECONDS} s: response p50 ${fmt(p50, 1)} ms, p99 ${fmt(p99, 1)} ms (target ≤ 20: ${verdict(p99 <= 20)}), API CPU ${rateCpu.toFixed(2)} ms per send.
`;
}

/** Each shape's drain rate beside stored recipients on the console channel and the chain, medians. */
function shapesTable(runs: Record<ShapeName, number>[], chain: Run[]): string {
  const rate = (shape: ShapeName) => median(runs.map((r) => r[shape]));
  // Against the stored shape of the same pass (a minute apart at most), the median of those ratios.
  const toStored = (shape: ShapeName) => median(runs.map((r) => r[shape] / r["stored, console"]));
  const chainRate = chain.length > 0 ? median(chain.map((r) => r.perSecond)) : NaN;
  const rows = SHAPES.map(
    (shape) =>
      `| ${shape} | ${fmt(rate(shape))} | ${fmt(toStored(shape), 2)} | ${fmt(rate(shape) / chainRate, 2)} |`,
  );
  const below = SHAPES.filter((shape) => toStored(shape) < 0.8);
  const inline = Math.min(rate("inline profile, new people"), rate("inline profile, existing people"));
  return `
## Delivery drain by shape

${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), load average at the end ${loadAverage()}.
${runs.length} bursts of each shape (${SHAPE_REPEATS} per round, after one unmeasured pass), medians; ${WORKERS} worker processes,
each burst ${fmt(SHAPE_N)} messages, one shape after the other, beside the bare chain's burst (one UPDATE per step)
of the same rounds.
Messages/s: messages / (last \`sent_at\` − first insert or POST). × stored: the median over the
bursts of each burst's rate over the stored shape's of the same pass.

- stored, console: pending events of known people (as the drain above), \`console\` provider.
- inline profile: each event carries \`recipient\` with locale, attributes and one address (the
  "identify on trigger" shape); new people (a new external id per event) or the 1,000 known ones.
- direct sends: ${DIRECT_CLIENTS} clients (undici \`request\`), each waiting for its answer, POST
  \`/v1/messages\` to an API process (from source, no embedded workers).
- webhook: the \`webhook\` provider to a local HTTP sink answering 200 at once.

| Shape | Messages/s | × stored, console | × bare chain |
|---|---|---|---|
${rows.join("\n")}

Targets: each shape ≥ 0.8 × stored, console: **${below.length === 0 ? "met" : `not met (${below.join("; ")})`}**;
inline profiles ≥ 1.0 × bare chain: **${inline >= chainRate ? "met" : "not met"}** (${fmt(inline / chainRate, 2)}).
`;
}

const medianCpu = (list: CpuPerMessage[]): CpuPerMessage => ({
  workers: median(list.map((c) => c.workers)),
  postgres: median(list.map((c) => c.postgres)),
  bench: median(list.map((c) => c.bench)),
});

const cpuText = (c: CpuPerMessage) =>
  `${fmt(c.workers + c.postgres + c.bench, 2)} (${fmt(c.workers, 2)} / ${fmt(c.postgres, 2)} / ${fmt(c.bench, 2)})`;

/** The drain with one webhook endpoint beside the drain without, medians over rounds. */
function webhooksTable(runs: WebhookRun[]): string {
  const ratio = median(runs.map((r) => r.with / r.without));
  return `
## Delivery drain with a webhook endpoint

${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), load average at the end ${loadAverage()}.
${runs.length} round(s) of ${fmt(N)} events, medians; ${WORKERS} worker processes running ingest, policy, delivery,
scheduler, callbacks (so the outbox relay) and webhooks. Each round: a burst without endpoints, then
a burst with one endpoint subscribed to \`message.sent\` and \`message.failed\` posting to a local HTTP
sink that answers 200 at once (docs/webhooks.md), after one unmeasured round of ${fmt(WARM_UP_BURST)} (both
bursts: the webhook path warms up too). Messages/s as in the drain above.

| Run | Messages/s | × without | CPU ms per message: total (workers / Postgres / bench and sink) |
|---|---|---|---|
| no endpoint | ${fmt(median(runs.map((r) => r.without)))} | 1.00 | ${cpuText(medianCpu(runs.map((r) => r.cpuWithout)))} |
| one endpoint (message.sent, message.failed) | ${fmt(median(runs.map((r) => r.with)))} | ${fmt(ratio, 2)} | ${cpuText(medianCpu(runs.map((r) => r.cpuWith)))} |

CPU is counted from the burst's first insert until its work was done: every message \`sent\`, and
with the endpoint every webhook delivered too.

Webhooks succeeded: ${fmt(median(runs.map((r) => r.webhooksPerSecond)))}/s (deliveries / (last received − first event
inserted)); message \`sent_at\` → webhook received: p50 ${fmt(median(runs.map((r) => r.lagP50)))} ms, p99
${fmt(median(runs.map((r) => r.lagP99)))} ms. Rounds (with/without): ${runs.map((r) => fmt(r.with / r.without, 2)).join(", ")}.

Target: with ≥ 0.8 × without: **${ratio >= 0.8 ? "met" : "not met"}** (${fmt(ratio, 2)}).
`;
}

/** Fixed-rate latency, svc beside the chain at the same rates, medians over rounds. */
function latencyTable(svcRuns: Run[][], chainRuns: Run[][]): string {
  const at = (runs: Run[][], i: number, key: keyof Run) => median(runs.map((r) => r[i]![key]));
  const rows = RATES.map((rate, i) => {
    const [s50, s95, s99] = (["p50", "p95", "p99"] as const).map((k) => at(svcRuns, i, k));
    const [c50, c95, c99] = (["p50", "p95", "p99"] as const).map((k) =>
      chainRuns.length > 0 ? at(chainRuns, i, k) : NaN,
    );
    return `| ${fmt(rate)} | ${fmt(s50!)} / ${fmt(s95!)} / ${fmt(s99!)} ms | ${fmt(c50!)} / ${fmt(c95!)} / ${fmt(c99!)} ms | ${fmt(s99! / c99!, 2)} |`;
  });
  const idx500 = RATES.indexOf(500);
  const idx200 = RATES.indexOf(200);
  const verdicts = [
    idx500 >= 0 && chainRuns.length > 0
      ? `svc p99 ≤ chain p99 at 500 events/s: **${at(svcRuns, idx500, "p99") <= at(chainRuns, idx500, "p99") ? "met" : "not met"}**`
      : "",
    idx200 >= 0
      ? `svc p99 ≤ 50 ms at 200 events/s: **${at(svcRuns, idx200, "p99") <= 50 ? "met" : "not met"}**`
      : "",
  ].filter(Boolean);
  return `
## Delivery latency at equal load

${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), load average at the end ${loadAverage()}.
${svcRuns.length} round(s), medians; ${WORKERS} worker processes per system. Events (chain items) go in every 20 ms
at a fixed rate for ${RATE_SECONDS} s, the same rate for both systems; one \`ingest-events\` job per ${ACCEPT_BATCH} events
of a tick. Latency: svc event \`created_at\` → message \`sent_at\`; chain insert → last step finished.

| Events/s | svc p50 / p95 / p99 | bare chain (UPDATE per step) p50 / p95 / p99 | svc p99 / chain p99 |
|---|---|---|---|
${rows.join("\n")}

${verdicts.join("; ")}.
`;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
