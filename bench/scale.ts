/**
 * Flat cost as data grows: the same measurements on an empty database and after seeding
 * BENCH_SCALE_MESSAGES messages (default 1,000,000, each with its event, outcome and delivery
 * attempt) over BENCH_SCALE_RECIPIENTS people (default 100,000), then EXPLAIN of every policy
 * query at that size. Run: `npm run bench:scale` (BENCH_WRITE=0 prints without writing docs).
 *
 * - direct send: DIRECT_CLIENTS clients POST `/v1/messages` to an API process (from source, no
 *   embedded workers) to people with history; latency per request.
 * - drain: a burst of DRAIN_N pending events with their ingest jobs, 2 worker processes, events → `sent`.
 * - `GET /v1/messages?recipient=…` and `GET /v1/events/{id}`: latency per request, one client.
 * Seeding is `INSERT … SELECT generate_series` in a few statements (no round trip per row).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import path from "node:path";
import { Pool } from "pg";
import { newId } from "@svc/core";
import { createApiKey } from "@svc/engine";
import { createQueues, type Queues } from "@svc/queue";
import { createPrisma, dropDatabase, migrate, withDatabaseName } from "@svc/store";
import { acceptShapedJobs } from "./lib/accept-shaped-jobs";
import { startNode, stop, until } from "./lib/processes";
import { fmt, writeSection } from "./lib/results";

const ROOT = path.resolve(__dirname, "..");
const REGISTER = path.join(ROOT, "scripts/register-ts.cjs");
const SERVER = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const MESSAGES = Number(process.env.BENCH_SCALE_MESSAGES ?? 1_000_000);
const PEOPLE = Number(process.env.BENCH_SCALE_RECIPIENTS ?? 100_000);
const DIRECT_N = Number(process.env.BENCH_SCALE_DIRECT ?? 2000);
const DRAIN_N = Number(process.env.BENCH_SCALE_DRAIN ?? 3000);
const READS = Number(process.env.BENCH_SCALE_READS ?? 1000);
const DIRECT_CLIENTS = 4;
/** People the measurements address (all exist before seeding; seeding gives them history). */
const MEASURED = 1000;
/**
 * A page every measured person fills in both phases (the empty phase's drain gives each three
 * messages): the default page grows with a person's history (about 10 rows empty, 30 seeded, two
 * passes of PER_PASS each phase), so a page of the same size is measured beside it.
 */
const SAME_PAGE = 3;
/** Messages one pass of the measurements gives each measured person. */
const PER_PASS = (DRAIN_N + DIRECT_N) / MEASURED;

interface Figures {
  direct: Latency;
  drain: number;
  listByRecipient: Latency;
  listSamePage: Latency;
  eventById: Latency;
}
interface Latency {
  p50: number;
  p99: number;
}

const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

function latency(samples: number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: pick(0.5), p99: pick(0.99) };
}

async function setUp(pool: Pool): Promise<void> {
  await pool.query(`INSERT INTO templates (key, locales, updated_at) VALUES ('bench', $1, now())`, [
    JSON.stringify({ en: { title: "Order {{ data.order }}", body: "Order {{ data.order }} shipped." } }),
  ]);
  await pool.query(
    `INSERT INTO rules (key, event, template, category, channels, condition, digest, updated_at)
     VALUES ('bench-drain', 'bench.drain', 'bench', 'transactional', ARRAY['push'], NULL, NULL, now())`,
  );
  await pool.query(
    `INSERT INTO recipients (id, external_id, locale, updated_at)
     SELECT 'rcp_bench_' || g, 'bench-' || g, 'en', now() FROM generate_series(0, $1 - 1) g`,
    [MEASURED],
  );
  await pool.query(
    `INSERT INTO addresses (recipient_id, channel, value)
     SELECT 'rcp_bench_' || g, 'push', 'device-' || g FROM generate_series(0, $1 - 1) g`,
    [MEASURED],
  );
}

/**
 * Seeds the history: PEOPLE people with an address each (the measured ones included), and MESSAGES
 * events over the last 90 days, each with its outcome, its message (mostly sent, some suppressed,
 * failed or delivered; three categories, one in 20 from an agent) and, when sent, its attempt.
 */
async function seed(pool: Pool): Promise<number> {
  const started = Date.now();
  const step = async (what: string, sql: string, params: unknown[] = []) => {
    const t = Date.now();
    await pool.query(sql, params);
    console.log(`  seeded ${what} in ${fmt((Date.now() - t) / 1000, 1)} s`);
  };
  await step(
    "people",
    `INSERT INTO recipients (id, external_id, locale, created_at, updated_at)
     SELECT 'rcp_bench_' || g, 'bench-' || g, 'en', now() - interval '120 days', now()
       FROM generate_series($1, $2 - 1) g`,
    [MEASURED, PEOPLE],
  );
  await step(
    "addresses",
    `INSERT INTO addresses (recipient_id, channel, value)
     SELECT 'rcp_bench_' || g, 'push', 'device-' || g FROM generate_series($1, $2 - 1) g`,
    [MEASURED, PEOPLE],
  );
  // Row g: person g % PEOPLE, at now − 90 days + g steps (oldest first), ids sorted by time like newId's.
  const rows = `
    SELECT g, 'rcp_bench_' || (g % $2) AS rid, 'bench-' || (g % $2) AS xid,
           now() - interval '90 days' + g * (interval '90 days' / $1) AS at,
           lpad(g::text, 10, '0') AS k,
           (ARRAY['transactional', 'transactional', 'marketing', 'product'])[1 + g % 4] AS category,
           CASE WHEN g % 100 < 88 THEN 'sent' WHEN g % 100 < 93 THEN 'delivered'
                WHEN g % 100 < 97 THEN 'suppressed' ELSE 'failed' END AS status
      FROM generate_series(0, $1 - 1) g`;
  await step(
    "events",
    `INSERT INTO events (id, name, source, sender, recipient_id, recipient_external_id, data, status, created_at, processed_at)
     SELECT 'evt_0' || k, 'bench.drain', 'api', 'backend', rid, xid, jsonb_build_object('order', g), 'processed', at, at
       FROM (${rows}) r`,
    [MESSAGES, PEOPLE],
  );
  await step(
    "messages",
    `INSERT INTO messages (id, status, status_reason, recipient_id, recipient_external_id, sender, agent_key,
                           category, template, rule, event_id, importance, claimed_importance, channels, channel,
                           content, data, dedup_key, send_at, link_nonce, unsubscribe_token_hash, tracking_token_hash,
                           sent_at, delivered_at, created_at, updated_at)
     SELECT 'msg_0' || k, status::"MessageStatus",
            CASE status WHEN 'suppressed' THEN 'frequency_cap' WHEN 'failed' THEN 'webhook 410' END,
            rid, xid, CASE WHEN g % 20 = 0 THEN 'agent' ELSE 'backend' END,
            CASE WHEN g % 20 = 0 THEN 'deploy-bot' END,
            category, 'bench', 'bench-drain', 'evt_0' || k, 'normal', 'normal', ARRAY['push'],
            CASE WHEN status IN ('sent', 'delivered', 'failed') THEN 'push' END,
            jsonb_build_object('title', 'Order ' || g, 'body', 'Order ' || g || ' shipped.'),
            jsonb_build_object('order', g), 'evt:evt_0' || k || ':bench-drain', at, md5(k),
            -- Random-looking SHA-256 hex, as composition stores them: their unique indexes are
            -- written at random places, like a live table's.
            encode(sha256(('u' || k)::bytea), 'hex'), encode(sha256(('t' || k)::bytea), 'hex'),
            CASE WHEN status IN ('sent', 'delivered') THEN at + interval '40 ms' END,
            CASE WHEN status = 'delivered' THEN at + interval '2 s' END, at, at
       FROM (${rows}) r`,
    [MESSAGES, PEOPLE],
  );
  await step(
    "outcomes",
    `INSERT INTO event_outcomes (event_id, rule_key, position, matched, status, message_id)
     SELECT 'evt_0' || k, 'bench-drain', 0, true, status::"MessageStatus", 'msg_0' || k FROM (${rows}) r`,
    [MESSAGES, PEOPLE],
  );
  await step(
    "attempts",
    `INSERT INTO delivery_attempts (id, message_id, channel, provider, address, ok, error, at)
     SELECT 'att_0' || k, 'msg_0' || k, 'push', 'console', 'device-' || (g % $2), status <> 'failed',
            CASE WHEN status = 'failed' THEN 'webhook 410' END, at + interval '40 ms'
       FROM (${rows}) r WHERE status IN ('sent', 'delivered', 'failed')`,
    [MESSAGES, PEOPLE],
  );
  // Fatigue states of everyone but the measured people (whose decisions they would change), so the
  // fatigue read's plan is the one of a populated table.
  await step(
    "fatigue states",
    `INSERT INTO fatigue_states (recipient_id, category, sent_since_engagement, updated_at)
     SELECT 'rcp_bench_' || g, 'marketing', g % 5, now() FROM generate_series($1, $2 - 1) g`,
    [MEASURED, PEOPLE],
  );
  // A database that grew to this size over 90 days has its rows vacuumed (hint bits and visibility
  // map set) and its pages written out; right after a bulk load neither holds, and the seeded
  // phase's first reads would dirty every page they touch while the checkpoint writes a gigabyte.
  await step("VACUUM ANALYZE", "VACUUM (ANALYZE)");
  await step("CHECKPOINT", "CHECKPOINT");
  return (Date.now() - started) / 1000;
}

// ---- measurements --------------------------------------------------------------------------------

async function timed(n: number, clients: number, request: (i: number) => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await request(i);
        samples.push(performance.now() - t);
      }
    }),
  );
  return samples;
}

async function call(url: string, key: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(url, {
    ...init,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
  });
  const body = await response.text();
  if (response.status >= 300) throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${body}`);
  return JSON.parse(body);
}

async function measure(pool: Pool, queues: Queues, api: string, key: string): Promise<Figures> {
  const person = (i: number) => `bench-${(i * 7919) % MEASURED}`;
  const direct = latency(
    await timed(DIRECT_N, DIRECT_CLIENTS, async (i) => {
      await call(`${api}/v1/messages`, key, {
        method: "POST",
        body: JSON.stringify({
          recipient: person(i),
          template: "bench",
          category: "transactional",
          channels: ["push"],
          data: { order: i },
        }),
      });
    }),
  );
  // The drain: a burst of pending events with their ingest jobs.
  const since = new Date();
  const ids = Array.from({ length: DRAIN_N }, () => newId("event"));
  await pool.query(
    `INSERT INTO events (id, name, source, sender, recipient_external_id, data, created_at)
     SELECT id, 'bench.drain', 'api', 'backend', 'bench-' || (n % $2), jsonb_build_object('order', n), clock_timestamp()
       FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n)`,
    [ids, MEASURED],
  );
  await queues.enqueueBulk(acceptShapedJobs(ids));
  const sent = async () =>
    (
      await pool.query(
        `SELECT count(*)::int AS n, extract(epoch FROM max(m.sent_at) - $2::timestamptz) * 1000 AS span_ms
           FROM messages m WHERE m.event_id = ANY($1::text[]) AND m.status IN ('sent', 'delivered')`,
        [ids, since],
      )
    ).rows[0] as { n: number; span_ms: number };
  await until(async () => (await sent()).n >= DRAIN_N, 600_000, "the drain");
  const drain = (1000 * DRAIN_N) / Number((await sent()).span_ms);
  const listByRecipient = latency(
    await timed(READS, 1, async (i) => {
      await call(`${api}/v1/messages?recipient=${person(i)}`, key);
    }),
  );
  const listSamePage = latency(
    await timed(READS, 1, async (i) => {
      await call(`${api}/v1/messages?recipient=${person(i)}&limit=${SAME_PAGE}`, key);
    }),
  );
  const eventById = latency(
    await timed(READS, 1, async (i) => {
      await call(`${api}/v1/events/${ids[(i * 31) % ids.length]}`, key);
    }),
  );
  return { direct, drain, listByRecipient, listSamePage, eventById };
}

// ---- EXPLAIN ------------------------------------------------------------------------------------

/** The policy's queries (as the store sends them, parameters inlined) at the seeded size. */
function policyQueries(): [string, string][] {
  const person = "'rcp_bench_7'";
  const since = "now() - interval '7 days'";
  return [
    [
      "caps, cooldown, agent budget, texting cap: the person's history (messageHistory)",
      `SELECT send_at, status, category, rule, agent_key, channels FROM messages
        WHERE recipient_id = ${person} AND send_at >= ${since}
          AND status IN ('queued', 'sending', 'sent', 'delivered', 'pending_approval')
          AND (category = 'transactional' OR rule = 'bench-drain' OR agent_key = 'deploy-bot'
               OR (category IN ('marketing') AND channels && ARRAY['sms']))`,
    ],
    [
      "fatigue state of a person and category",
      `SELECT * FROM fatigue_states WHERE recipient_id = ${person} AND category = 'marketing'`,
    ],
    [
      "dedup: a message by its dedup key",
      `SELECT * FROM messages WHERE dedup_key = 'evt:evt_00000004242:bench-drain'`,
    ],
    [
      "idempotency: a direct send by its key",
      `SELECT * FROM messages WHERE sender = 'backend' AND idempotency_key = 'login-493817'`,
    ],
    [
      "an event's messages (ingest snapshot's has_messages)",
      `SELECT EXISTS (SELECT 1 FROM messages WHERE event_id = 'evt_00000004242')`,
    ],
    [
      "GET /v1/messages?recipient=…: a page, newest first",
      `SELECT * FROM messages WHERE recipient_id = ${person} ORDER BY created_at DESC, id DESC LIMIT 51`,
    ],
    [
      "a page's attempts",
      `SELECT * FROM delivery_attempts WHERE message_id IN ('msg_00000004242', 'msg_00000104242')`,
    ],
  ];
}

async function explainAll(pool: Pool): Promise<string> {
  const parts: string[] = [];
  for (const [what, sql] of policyQueries()) {
    const { rows } = await pool.query(`EXPLAIN (ANALYZE, COSTS OFF, SUMMARY OFF) ${sql}`);
    parts.push(`${what}:\n${rows.map((r) => `    ${r["QUERY PLAN"]}`).join("\n")}`);
  }
  return parts.join("\n\n");
}

// ---- main ----------------------------------------------------------------------------------------

async function main() {
  const tag = randomBytes(3).toString("hex");
  const url = withDatabaseName(SERVER, `svc_bench_scale_${tag}`);
  await migrate({
    databaseUrl: url,
    migrationsDir: path.join(ROOT, "prisma/migrations"),
    createDatabase: true,
  });
  const pool = new Pool({ connectionString: url, max: 4 });
  await setUp(pool);
  const prefix = `svc-bench-scale-${tag}`;
  const configFile = path.join(mkdtempSync(path.join(tmpdir(), "svc-scale-")), "svc.yaml");
  writeFileSync(
    configFile,
    JSON.stringify({
      database: { url, auto_migrate: false },
      redis: { url: REDIS_URL, prefix },
      channels: { push: { provider: "console" } },
      log: { level: "warn" },
    }),
  );
  const secretKey = randomBytes(32).toString("base64");
  const prisma = createPrisma({ databaseUrl: url });
  const { key } = await createApiKey(
    { prisma, now: () => new Date() },
    { name: "bench-scale", scopes: ["admin"] },
  );
  await prisma.$disconnect();
  const queues = createQueues({ redisUrl: REDIS_URL, prefix });
  await queues.ready();
  const port = 20_000 + Math.floor(Math.random() * 10_000);
  const api = await startNode(
    path.join(ROOT, "apps/api/src/main.ts"),
    [],
    {
      SVC_CONFIG: configFile,
      SVC_SECRET_KEY: secretKey,
      PORT: String(port),
      SVC__WORKER__EMBEDDED: "false",
      SVC__API__RATE_LIMIT__ENABLED: "false",
    },
    `http://127.0.0.1:${port}/readyz`,
    ["-r", REGISTER],
  );
  const workers: ChildProcess[] = Array.from({ length: 2 }, () =>
    spawn(
      process.execPath,
      ["-r", REGISTER, path.join(ROOT, "apps/worker/src/main.ts"), "--config", configFile],
      { env: { ...process.env, SVC_SECRET_KEY: secretKey }, stdio: ["ignore", "ignore", "inherit"] },
    ),
  );
  const apiUrl = `http://127.0.0.1:${port}`;
  try {
    await until(async () => (await queues.queue("ingest").getWorkersCount()) >= 2, 60_000, "workers");
    // Warm up (JIT, pools, caches), unmeasured.
    await measure(pool, queues, apiUrl, key);
    const empty = await measure(pool, queues, apiUrl, key);
    console.log(`empty: ${JSON.stringify(empty)} (uptime ${loadAverage()})`);
    const seedSeconds = await seed(pool);
    // The same unmeasured pass as before the empty figures: right after the bulk load and its
    // CHECKPOINT, every page a write first touches goes to the WAL whole. Printed, not compared.
    const firstAfterSeeding = await measure(pool, queues, apiUrl, key);
    console.log(`first pass after seeding: ${JSON.stringify(firstAfterSeeding)} (uptime ${loadAverage()})`);
    const seeded = await measure(pool, queues, apiUrl, key);
    console.log(`seeded: ${JSON.stringify(seeded)} (uptime ${loadAverage()})`);
    const plans = await explainAll(pool);
    console.log(plans);
    const { rows: indexes } = await pool.query(
      `SELECT count(*)::int AS n, pg_size_pretty(sum(pg_relation_size(indexrelid))) AS size
         FROM pg_index WHERE indrelid = 'messages'::regclass`,
    );
    const table = report(
      { empty, firstAfterSeeding, seeded },
      seedSeconds,
      plans,
      indexes[0] as { n: number; size: string },
    );
    console.log(table);
    if (process.env.BENCH_WRITE !== "0") writeSection("scale", table);
  } finally {
    await stop(api);
    await Promise.all(workers.map(stop));
    await Promise.all(
      ["ingest", "policy", "delivery", "scheduler"].map((name) =>
        queues
          .queue(name as "ingest")
          .obliterate({ force: true })
          .catch(() => undefined),
      ),
    );
    await queues.close();
    await pool.end();
    await dropDatabase(url);
  }
}

function report(
  { empty, firstAfterSeeding, seeded }: { empty: Figures; firstAfterSeeding: Figures; seeded: Figures },
  seedSeconds: number,
  plans: string,
  indexes: { n: number; size: string },
): string {
  const rows: [string, string, string, number][] = [
    [
      "direct send p99 (POST /v1/messages)",
      `${fmt(empty.direct.p99, 1)} ms`,
      `${fmt(seeded.direct.p99, 1)} ms`,
      empty.direct.p99 / seeded.direct.p99,
    ],
    [
      "drain, events → sent",
      `${fmt(empty.drain)} msg/s`,
      `${fmt(seeded.drain)} msg/s`,
      seeded.drain / empty.drain,
    ],
    [
      "GET /v1/messages?recipient=… p99",
      `${fmt(empty.listByRecipient.p99, 1)} ms`,
      `${fmt(seeded.listByRecipient.p99, 1)} ms`,
      empty.listByRecipient.p99 / seeded.listByRecipient.p99,
    ],
    [
      `GET /v1/messages?recipient=…&limit=${SAME_PAGE} p99 (the same page in both)`,
      `${fmt(empty.listSamePage.p99, 1)} ms`,
      `${fmt(seeded.listSamePage.p99, 1)} ms`,
      empty.listSamePage.p99 / seeded.listSamePage.p99,
    ],
    [
      "GET /v1/events/{id} p99",
      `${fmt(empty.eventById.p99, 1)} ms`,
      `${fmt(seeded.eventById.p99, 1)} ms`,
      empty.eventById.p99 / seeded.eventById.p99,
    ],
  ];
  const below = rows.filter((r) => r[3] < 0.8).map((r) => r[0]);
  return `
## Flat cost as data grows

${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), load average at the end ${loadAverage()}.
The same measurements on an empty database and after seeding ${fmt(MESSAGES)} messages (each with its event,
outcome, link token hashes and, when sent or failed, a delivery attempt) over ${fmt(PEOPLE)} people with a fatigue
state each (but the measured ones), 90 days of history
(${fmt(seedSeconds)} s with \`INSERT … SELECT generate_series\`, then \`VACUUM (ANALYZE)\` and \`CHECKPOINT\`). The measured people are
1,000 of them, about ${fmt(MESSAGES / PEOPLE)} messages each after seeding. Direct sends: ${fmt(DIRECT_N)} requests from
${DIRECT_CLIENTS} clients; drain: a burst of ${fmt(DRAIN_N)} events, 2 worker processes; reads: ${fmt(READS)} requests from one client.
Each phase is measured after one unmeasured pass of the same measurements (JIT, pools, caches; after seeding,
also the first writes to each page since the \`CHECKPOINT\`, which go to the WAL whole).
\`messages\` has ${indexes.n} indexes (${indexes.size} at this size).

| Measurement | Empty | ${fmt(MESSAGES)} messages | Ratio (≥ 0.8 asked; latency: empty / seeded) |
|---|---|---|---|
${rows.map((r) => `| ${r[0]} | ${r[1]} | ${r[2]} | ${fmt(r[3], 2)} |`).join("\n")}

Target each ≥ 0.8: **${below.length === 0 ? "met" : `not met (${below.join("; ")})`}**.
The default page (up to 50) holds a measured person's whole history, about ${fmt(2 * PER_PASS)} messages on the
empty database and ${fmt(4 * PER_PASS + MESSAGES / PEOPLE)} after seeding, so it grows with the person; the page of ${SAME_PAGE} is the same in both.
First pass after seeding (unmeasured): direct p99 ${fmt(firstAfterSeeding.direct.p99, 1)} ms, drain ${fmt(firstAfterSeeding.drain)} msg/s,
list p99 ${fmt(firstAfterSeeding.listByRecipient.p99, 1)} ms, same page ${fmt(firstAfterSeeding.listSamePage.p99, 1)} ms, event ${fmt(firstAfterSeeding.eventById.p99, 1)} ms.
p50s, empty → seeded: direct ${fmt(empty.direct.p50, 1)} → ${fmt(seeded.direct.p50, 1)} ms, list ${fmt(empty.listByRecipient.p50, 1)} → ${fmt(seeded.listByRecipient.p50, 1)} ms,
same page ${fmt(empty.listSamePage.p50, 1)} → ${fmt(seeded.listSamePage.p50, 1)} ms, event ${fmt(empty.eventById.p50, 1)} → ${fmt(seeded.eventById.p50, 1)} ms.

Plans of the policy's queries at this size (\`EXPLAIN ANALYZE\`):

\`\`\`
${plans}
\`\`\`
`;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
