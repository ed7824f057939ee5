/**
 * The drain on a fleet's servers: `npm run bench:fleet` (docs/scaling.md, docs/benchmarks.md).
 *
 * The same drain as `bench:drain`'s stored shape (events inserted as `pending` rows with the
 * ingest jobs the accept path leaves, one rule, a console channel, 1,000 people) on:
 * - Redis: one server, or a Redis Cluster of 3 primaries and 3 replicas (each started here, on
 *   spare ports, so nothing else counts in their numbers);
 * - Postgres: directly, or through PgBouncer in transaction mode (`database.pool_mode: transaction`);
 * - 1, 2 and 4 worker processes (every queue; BENCH_FLEET_WORKERS, e.g. "1,2").
 * Per setup, three phases of BENCH_MESSAGES (default 4,000) messages, after an unmeasured 1,000:
 * - drain: events → `sent`, messages/s (ingest delivers due messages inline);
 * - ingest stage: events → `queued` for a rule with a 10 s delay while the delivery queue is paused
 *   (long enough that no message is already due when a busy machine composes it: a due one is
 *   delivered inline and never waits `queued`);
 * - delivery stage: the same messages `queued` → `sent` once the queue resumes.
 * Per stage: CPU milliseconds per message (svc's workers, Redis, Postgres, PgBouncer), Redis
 * commands per message (INFO commandstats of every primary), and Postgres statements and
 * transactions per message as svc sends them (every `pg` query of the workers is counted by a
 * preloaded module; each is one round trip). BENCH_FLEET_SETUPS picks setups by name words
 * (e.g. "cluster"); BENCH_WRITE=1 writes the tables into docs/benchmarks.md.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Redis from "ioredis";
import { Pool } from "pg";
import { newId } from "@svc/core";
import { createQueues, type Queues, type RedisTopology } from "@svc/queue";
import {
  createTestDatabase,
  freePort,
  startPgBouncer,
  startRedisCluster,
  type OwnPgBouncer,
  type OwnRedisCluster,
  type TestDatabase,
} from "@svc/testkit";
import { acceptShapedJobs } from "./lib/accept-shaped-jobs";
import { benchRecipients, insertRecipients } from "./lib/bench-recipients";
import { insertDrainTemplateAndRule } from "./lib/bench-rules";
import { startOwnRedis, type OwnRedis } from "./lib/faults/redis-server";
import { startWorker, writeConfig, type SvcProcess } from "./lib/faults/svc-processes";
import { CpuSampler, cpuSecondsOf, until } from "./lib/processes";
import { fmt, writeSection } from "./lib/results";
import { sentCount } from "./lib/sent-count";

const N = Number(process.env.BENCH_MESSAGES ?? 4000);
const WARM_UP = 1000;
const RECIPIENTS = 1000;
const WORKER_COUNTS = (process.env.BENCH_FLEET_WORKERS ?? "1,2,4").split(",").map(Number);
const SETUP_FILTER = (process.env.BENCH_FLEET_SETUPS ?? "").split(",").filter(Boolean);
const COUNT_QUERIES = path.resolve(__dirname, "lib/count-queries.cjs");
const OBSERVER = "bench_observer";

interface Servers {
  name: string;
  topology: RedisTopology;
  redisSection: Record<string, unknown>;
  databaseSection(db: TestDatabase): Record<string, unknown>;
  /** Addresses of the Redis primaries (commands are counted on each). */
  primaries(): Promise<{ host: string; port: number }[]>;
  /** Process ids of the Redis servers (every node of a cluster). */
  pids(): number[];
  /** Process id of this setup's PgBouncer, if any. */
  pgbouncerPid(): number | undefined;
  stop(): Promise<void>;
}

async function serversFor(redisKind: "single" | "cluster", pooled: boolean): Promise<Servers> {
  let single: OwnRedis | null = null;
  let cluster: OwnRedisCluster | null = null;
  let pgbouncer: OwnPgBouncer | null = null;
  if (redisKind === "single") single = await startOwnRedis(await freePort(), { appendonly: false });
  else cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1 });
  if (pooled) pgbouncer = await startPgBouncer({ poolMode: "transaction", poolSize: 40 });
  return {
    name: `${redisKind === "single" ? "one Redis" : "Redis Cluster 3+3"}, ${pooled ? "PgBouncer" : "direct"}`,
    topology: single ? { mode: "single", url: single.url } : { mode: "cluster", nodes: cluster!.nodes },
    redisSection: single ? { url: single.url } : { cluster: { nodes: cluster!.nodes } },
    databaseSection: (db) =>
      pgbouncer
        ? { url: pgbouncer.urlFor(db.databaseUrl), pool_mode: "transaction", direct_url: db.databaseUrl }
        : { url: db.databaseUrl },
    async primaries() {
      if (single) return [{ host: "127.0.0.1", port: single.port }];
      return (await cluster!.primaries()).map((p) => ({ host: "127.0.0.1", port: p.port }));
    },
    pids: () =>
      [single?.pid, ...(cluster?.members.map((m) => m.process.pid) ?? [])].filter(
        (pid): pid is number => pid !== undefined,
      ),
    pgbouncerPid: () => pgbouncer?.process.pid,
    async stop() {
      await pgbouncer?.stop();
      await single?.stop();
      await cluster?.stop();
    },
  };
}

interface Meter {
  cpuMs: { workers: number; redis: number; postgres: number; pgbouncer: number };
  redisCommands: number;
  statements: number;
  transactions: number;
}

async function redisCalls(servers: Servers): Promise<number> {
  let total = 0;
  for (const node of await servers.primaries()) {
    const redis = new Redis({ ...node, lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    const stats = await redis.info("commandstats");
    redis.disconnect();
    for (const match of stats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) {
      if (match[1] !== "info") total += Number(match[2]);
    }
  }
  return total;
}

function queryCounts(files: string[]): { statements: number; transactions: number } {
  let statements = 0;
  let control = 0;
  for (const file of files) {
    try {
      const counts = JSON.parse(readFileSync(file, "utf8")) as {
        statements: number;
        transactionControl: number;
      };
      statements += counts.statements;
      control += counts.transactionControl;
    } catch {
      // Not written yet.
    }
  }
  // BEGIN and COMMIT (or ROLLBACK) per transaction.
  return { statements, transactions: control / 2 };
}

async function meter(
  servers: Servers,
  workers: SvcProcess[],
  countFiles: string[],
  backends: CpuSampler,
): Promise<Meter> {
  await sleep(600); // the workers' counts are flushed twice a second
  const serverPids = servers.pids();
  const redisCpu = serverPids.reduce((sum, pid) => sum + safeCpu(pid), 0);
  const queries = queryCounts(countFiles);
  return {
    cpuMs: {
      workers: 1000 * workers.reduce((sum, w) => sum + safeCpu(w.child.pid!), 0),
      redis: 1000 * redisCpu,
      // This database's backends only: the server may be serving other work meanwhile.
      postgres: 1000 * backends.total(),
      pgbouncer: servers.pgbouncerPid() === undefined ? 0 : 1000 * safeCpu(servers.pgbouncerPid()!),
    },
    redisCommands: await redisCalls(servers),
    ...queries,
  };
}

function safeCpu(pid: number): number {
  try {
    return cpuSecondsOf(pid);
  } catch {
    return 0;
  }
}

interface StageCost {
  cpuMs: { workers: number; redis: number; postgres: number; pgbouncer: number; total: number };
  redisCommands: number;
  statements: number;
  transactions: number;
}

function costPerMessage(before: Meter, after: Meter, messages: number): StageCost {
  const per = (a: number, b: number) => (b - a) / messages;
  const workers = per(before.cpuMs.workers, after.cpuMs.workers);
  const redis = per(before.cpuMs.redis, after.cpuMs.redis);
  const postgres = per(before.cpuMs.postgres, after.cpuMs.postgres);
  const pgbouncer = per(before.cpuMs.pgbouncer, after.cpuMs.pgbouncer);
  return {
    cpuMs: { workers, redis, postgres, pgbouncer, total: workers + redis + postgres + pgbouncer },
    redisCommands: per(before.redisCommands, after.redisCommands),
    statements: per(before.statements, after.statements),
    transactions: per(before.transactions, after.transactions),
  };
}

let eventCounter = 0;
async function insertEvents(pool: Pool, queues: Queues, count: number, name: string): Promise<void> {
  const ids: string[] = [];
  const recipients: string[] = [];
  const data: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = eventCounter++;
    ids.push(newId("event"));
    recipients.push(`bench-${n % RECIPIENTS}`);
    data.push(JSON.stringify({ order: n }));
  }
  await pool.query(
    `INSERT INTO events (id, name, source, sender, recipient_external_id, data, created_at)
     SELECT id, $4, 'api', 'backend', r, d::jsonb, clock_timestamp()
       FROM unnest($1::text[], $2::text[], $3::text[]) AS t(id, r, d)`,
    [ids, recipients, data, name],
  );
  await queues.enqueueBulk(acceptShapedJobs(ids));
}

async function setUpRows(pool: Pool): Promise<void> {
  await insertDrainTemplateAndRule(pool);
  await pool.query(
    `INSERT INTO rules (key, event, template, category, channels, condition, digest, delay_seconds, updated_at)
     VALUES ('bench-later', 'bench.later', 'bench', 'transactional', ARRAY['push'], NULL, NULL, 10, now())`,
  );
  await insertRecipients(pool, benchRecipients(RECIPIENTS), ["push"]);
}

interface Row {
  setup: string;
  workers: number;
  drainPerSecond: number;
  drain: StageCost;
  ingest: StageCost;
  delivery: StageCost;
}

async function runOne(servers: Servers, workerCount: number): Promise<Row> {
  const db = await createTestDatabase("bench_fleet");
  // The bench reads and polls as a role of its own, so its backends are not counted as svc's.
  const observer = new URL(db.databaseUrl);
  await db.prisma.$executeRawUnsafe(
    `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${OBSERVER}') THEN CREATE ROLE ${OBSERVER} LOGIN SUPERUSER; END IF; END $$`,
  );
  observer.username = OBSERVER;
  const pool = new Pool({ connectionString: observer.toString(), max: 4 });
  const backends = new CpuSampler("postgres", ` ${db.name} `, [`postgres: ${OBSERVER} `]);
  const prefix = `bench_fleet_${Date.now()}`;
  const queues = createQueues({ redis: servers.topology, prefix });
  const workers: SvcProcess[] = [];
  const countDir = mkdtempSync(path.join(tmpdir(), "svc-bench-fleet-"));
  const countFiles: string[] = [];
  try {
    await setUpRows(pool);
    const configFile = writeConfig(
      {
        database: servers.databaseSection(db),
        redis: servers.redisSection,
        prefix,
        sinkUrl: "http://127.0.0.1:9/unused",
        settings: { lease_seconds: 30, sweep_seconds: 10, lock_ms: 30_000 },
      },
      {
        channels: {
          push: { provider: "console" },
          hook: { provider: "webhook", url: "http://127.0.0.1:9/unused", secret_env: "HOOK_SECRET" },
        },
      },
    );
    for (let i = 0; i < workerCount; i++) {
      const countFile = path.join(countDir, `worker-${i}.json`);
      countFiles.push(countFile);
      workers.push(
        await startWorker(`worker-${i}`, configFile, [], {
          preload: [COUNT_QUERIES],
          env: { BENCH_QUERY_COUNT_FILE: countFile, SVC__LOG__LEVEL: "error" },
        }),
      );
    }
    // Unmeasured: JIT, pools and caches warm up.
    let since = new Date();
    await insertEvents(pool, queues, WARM_UP, "bench.drain");
    await until(async () => (await sentCount(pool, since)) >= WARM_UP, 300_000, "warm-up");

    // The drain: events → sent.
    let before = await meter(servers, workers, countFiles, backends);
    since = new Date();
    await insertEvents(pool, queues, N, "bench.drain");
    await until(async () => (await sentCount(pool, since)) >= N, 300_000, "drain", 20);
    const { rows } = await pool.query(
      `SELECT extract(epoch FROM max(sent_at) - $1::timestamptz) * 1000 AS span FROM messages WHERE created_at >= $1`,
      [since],
    );
    const drainPerSecond = (1000 * N) / Number(rows[0].span);
    let after = await meter(servers, workers, countFiles, backends);
    const drain = costPerMessage(before, after, N);

    // The ingest stage alone: delivery paused, messages due 10 s later wait queued.
    const delivery = queues.queue("delivery");
    await delivery.pause();
    before = after;
    since = new Date();
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
      "ingest stage",
      20,
    ).catch(async (error: unknown) => {
      const { rows: statuses } = await pool.query(
        `SELECT status, count(*)::int AS n FROM messages WHERE created_at >= $1 GROUP BY status`,
        [since],
      );
      throw new Error(`${(error as Error).message}: ${JSON.stringify(statuses)}`);
    });
    after = await meter(servers, workers, countFiles, backends);
    const ingest = costPerMessage(before, after, N);

    // The delivery stage alone: every job due, then the queue resumes.
    const { rows: last } = await pool.query(
      `SELECT max(send_at) AS last FROM messages WHERE created_at >= $1`,
      [since],
    );
    await sleep(Math.max(0, (last[0].last as Date).getTime() + 300 - Date.now()));
    before = await meter(servers, workers, countFiles, backends);
    await delivery.resume();
    await until(async () => (await sentCount(pool, since)) >= N, 300_000, "delivery stage", 20);
    after = await meter(servers, workers, countFiles, backends);
    const deliveryCost = costPerMessage(before, after, N);
    return {
      setup: servers.name,
      workers: workerCount,
      drainPerSecond,
      drain,
      ingest,
      delivery: deliveryCost,
    };
  } finally {
    backends.stop();
    await Promise.all(workers.map((w) => w.stop()));
    await queues.close();
    await pool.end();
    await db.drop();
  }
}

const cpuCell = (c: StageCost) =>
  `${fmt(c.cpuMs.total, 2)} (${fmt(c.cpuMs.workers, 2)} / ${fmt(c.cpuMs.redis, 2)} / ${fmt(c.cpuMs.postgres, 2)}${c.cpuMs.pgbouncer > 0.005 ? ` / ${fmt(c.cpuMs.pgbouncer, 2)}` : ""})`;

async function main(): Promise<void> {
  const setups: ["single" | "cluster", boolean][] = [
    ["single", false],
    ["single", true],
    ["cluster", false],
    ["cluster", true],
  ];
  const rows: Row[] = [];
  for (const [redisKind, pooled] of setups) {
    const label = `${redisKind} ${pooled ? "pgbouncer" : "direct"}`;
    if (SETUP_FILTER.length > 0 && !SETUP_FILTER.some((w) => label.includes(w))) continue;
    const servers = await serversFor(redisKind, pooled);
    try {
      for (const workers of WORKER_COUNTS) {
        const row = await runOne(servers, workers);
        console.error(JSON.stringify(row));
        rows.push(row);
      }
    } finally {
      await servers.stop();
    }
  }
  const drainTable = [
    `${N} messages per phase; load average ${loadavg()[0]!.toFixed(1)} at the end. CPU: ms per message, total (svc's workers / Redis / Postgres / PgBouncer).`,
    "",
    "| setup | workers | drain, messages/s | drain CPU | Redis commands | statements | transactions |",
    "|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.setup} | ${r.workers} | ${fmt(r.drainPerSecond)} | ${cpuCell(r.drain)} | ${fmt(r.drain.redisCommands, 1)} | ${fmt(r.drain.statements, 2)} | ${fmt(r.drain.transactions, 2)} |`,
    ),
  ].join("\n");
  const stageTable = [
    "Per stage (per message; 'statements' are `pg` queries other than BEGIN/COMMIT, each one round trip):",
    "",
    "| setup | workers | ingest CPU | ingest Redis cmds | ingest statements | ingest tx | delivery CPU | delivery Redis cmds | delivery statements | delivery tx |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.setup} | ${r.workers} | ${cpuCell(r.ingest)} | ${fmt(r.ingest.redisCommands, 1)} | ${fmt(r.ingest.statements, 2)} | ${fmt(r.ingest.transactions, 2)} | ${cpuCell(r.delivery)} | ${fmt(r.delivery.redisCommands, 1)} | ${fmt(r.delivery.statements, 2)} | ${fmt(r.delivery.transactions, 2)} |`,
    ),
  ].join("\n");
  console.log(`${drainTable}\n\n${stageTable}`);
  if (process.env.BENCH_WRITE === "1")
    writeSection(
      "fleet",
      `## The drain on a fleet's servers (\`npm run bench:fleet\`)\n\n${drainTable}\n\n${stageTable}`,
    );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
