import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "pg";
import { newId } from "@svc/core";
import { createApiKey } from "@svc/engine";
import {
  createTestDatabase,
  startPgBouncer,
  startRedisCluster,
  startSentinelGroup,
  type OwnPgBouncer,
  type OwnRedisCluster,
  type OwnSentinelGroup,
  type TestDatabase,
} from "@svc/testkit";
import { postEvents } from "./load";
import { startOwnRedis, type OwnRedis } from "./redis-server";
import { WebhookSink } from "./sink";
import {
  freePort,
  startApi,
  startWorker,
  writeConfig,
  type FaultRunSettings,
  type SvcProcess,
} from "./svc-processes";

// One fault run (test/faults and `npm run bench:faults` share it): svc's processes against a
// Redis of their own and a fresh database, `events` events posted through the API to a webhook
// sink, the fault injected once the sink has seen a third of them, then a wait until every
// accepted event's message is `sent`. docs/operations.md "Recovery guarantees". A status webhook
// endpoint subscribed to `message.sent` posts to a second sink (docs/webhooks.md "Delivery that
// loses nothing"): every sent message's event must arrive, with one event id per message.

export const FAULTS = [
  "kill-all-in-one",
  "kill-split-workers",
  "redis-restart-empty",
  "redis-restart-aof",
  "postgres-terminate",
  // On a fleet's servers (docs/scaling.md): a Redis Cluster primary killed (its replica promoted),
  // the Sentinel group's primary killed, PgBouncer (transaction mode) restarted.
  "cluster-primary-killed",
  "sentinel-primary-killed",
  "pgbouncer-restart",
] as const;
export type FaultName = (typeof FAULTS)[number];

export interface FaultRunOptions {
  fault: FaultName;
  events: number;
  settings: FaultRunSettings;
  /** How long to wait for everything to be final after the last fault. */
  finalWithinMs?: number;
  log?: (line: string) => void;
}

interface RepeatTrace {
  id: string;
  /** When each send arrived (ms after the fault) and which process sent it. */
  arrivals: { at: number; from: string }[];
  attempts: { at: number; ok: boolean; error: string | null }[];
}

export interface FaultRunResult {
  fault: FaultName;
  accepted: number;
  sent: number;
  /** Accepted events whose message is not `sent` when the wait ended. */
  lost: number;
  /** Extra arrivals at the sink (a message id seen n times counts n - 1). */
  duplicates: number;
  /**
   * Repeated message ids the fault does not explain (must be 0): after a SIGKILL a repeat must
   * include a send by the killed process (it died before recording it); after Postgres sessions
   * were terminated or the pooler restarted, the first send's `sent` write failed with its
   * session; a Redis fault (a restart, a failover) explains none.
   */
  repeatsUnexplained: number;
  /**
   * Repeats the fault does not explain but an earlier attempt does: svc gave up waiting for the
   * sink's answer (it timed out) and sent again. Expected only on a machine so loaded that a
   * request waits longer than the channel's timeout.
   */
  repeatsAfterTimeout: number;
  /** The first few of those, with each arrival and each stored attempt, to trace the cause. */
  unexplainedTraces: RepeatTrace[];
  /**
   * Sends whose run found its claim taken over when it came to record `sent` (the warning
   * "delivery lease lost after sending", must be 0): two live runs sent the same message.
   */
  sendsAfterLostLease: number;
  /** Messages the sink had seen (or was about to) and svc had not recorded `sent` at the fault. */
  inFlightAtFault: number;
  /** API answers ≥ 500 during the run (500s among them), and requests that got no answer at all. */
  fiveXx: number;
  internalErrors: number;
  /** The errors behind the 500s, as the API logged them (up to five distinct). */
  internalErrorCauses: string[];
  networkErrors: number;
  /** From the last fault until every accepted event's message was `sent` (null: not within the wait). */
  secondsToFinal: number | null;
  /** Sent messages whose `message.sent` status webhook never arrived (must be 0). */
  webhooksMissing: number;
  /** Messages with more than one event id, or events about no message of the run (must be 0). */
  webhooksInvented: number;
  /** Status webhooks that arrived more than once (same event id; allowed: at least once). */
  webhookRepeats: number;
  /** From the last fault until every sent message's status webhook arrived (null: not within the wait). */
  webhooksSecondsToFinal: number | null;
}

interface Running {
  processes: SvcProcess[];
  apiUrls: () => string[];
}

/** The servers one run's svc uses, and the `redis` and `database` sections that reach them. */
interface Servers {
  redisSection: Record<string, unknown>;
  databaseSection: Record<string, unknown>;
  redis?: OwnRedis;
  cluster?: OwnRedisCluster;
  sentinel?: OwnSentinelGroup;
  pgbouncer?: OwnPgBouncer;
  stop(): Promise<void>;
}

interface FaultPlan {
  /** The servers (default: one Redis of the run's own, Postgres directly). */
  servers?(db: TestDatabase): Promise<Servers>;
  start(configFile: string): Promise<Running>;
  /** Injects the fault; resolves with the time the last fault ended (ms). */
  inject(ctx: { running: Running; servers: Servers; db: TestDatabase; configFile: string }): Promise<number>;
}

async function ownRedisServers(db: TestDatabase, appendonly: boolean): Promise<Servers> {
  const redis = await startOwnRedis(await freePort(), { appendonly });
  return {
    redis,
    redisSection: { url: redis.url },
    databaseSection: { url: db.databaseUrl },
    stop: () => redis.stop(),
  };
}

// The queue whose primary the cluster fault kills: ingest carries the drain (it delivers inline).
const KILLED_QUEUE_TAG = "{ingest}";

const SPLIT_NON_DELIVERY = ["ingest", "policy", "digests", "screening", "callbacks", "webhooks", "scheduler"];

const liveUrls = (processes: SvcProcess[]) => () =>
  processes
    .filter((p) => p.url && p.child.exitCode === null && p.child.signalCode === null)
    .map((p) => p.url!);

const allInOne = async (configFile: string, count: number): Promise<Running> => {
  const processes = await Promise.all(
    Array.from({ length: count }, (_, i) => startApi(`all-in-one-${i + 1}`, configFile, { embedded: true })),
  );
  return { processes, apiUrls: liveUrls(processes) };
};

const restartRedis = async ({ servers }: { servers: Servers }) => {
  await servers.redis!.kill();
  await sleep(3_000);
  await servers.redis!.start();
  return Date.now();
};

const PLANS: Record<FaultName, FaultPlan> = {
  // Two all-in-one processes; one is SIGKILLed and not restarted: the other finishes its work.
  "kill-all-in-one": {
    start: (configFile) => allInOne(configFile, 2),
    async inject({ running }) {
      await running.processes[0]!.kill();
      return Date.now();
    },
  },
  // API + one worker for ingest and the rest + two delivery workers. The first delivery worker
  // and the ingest worker are SIGKILLed together; a supervisor restarts the ingest worker.
  "kill-split-workers": {
    async start(configFile) {
      const processes = await Promise.all([
        startApi("api", configFile, { embedded: false }),
        startWorker("worker-ingest", configFile, SPLIT_NON_DELIVERY),
        startWorker("worker-delivery-1", configFile, ["delivery"]),
        startWorker("worker-delivery-2", configFile, ["delivery"]),
      ]);
      return { processes, apiUrls: liveUrls(processes) };
    },
    async inject({ running, configFile }) {
      await Promise.all([running.processes[1]!.kill(), running.processes[2]!.kill()]);
      const at = Date.now();
      running.processes.push(await startWorker("worker-ingest-restarted", configFile, SPLIT_NON_DELIVERY));
      return at;
    },
  },
  // Redis SIGKILLed, back 3 s later without its data (no persistence).
  "redis-restart-empty": { start: (configFile) => allInOne(configFile, 1), inject: restartRedis },
  // Redis SIGKILLed, back 3 s later from its append-only file (fsync every second).
  "redis-restart-aof": {
    servers: (db) => ownRedisServers(db, true),
    start: (configFile) => allInOne(configFile, 1),
    inject: restartRedis,
  },
  // A Redis Cluster of 3 primaries and 3 replicas; the primary holding the ingest queue's slot is
  // SIGKILLed and not restarted: its replica takes over (writes it had not replicated are lost).
  "cluster-primary-killed": {
    async servers(db) {
      const cluster = await startRedisCluster({ primaries: 3, replicasPerPrimary: 1 });
      return {
        cluster,
        redisSection: { cluster: { nodes: cluster.nodes } },
        databaseSection: { url: db.databaseUrl },
        stop: () => cluster.stop(),
      };
    },
    start: (configFile) => allInOne(configFile, 2),
    async inject({ servers }) {
      await servers.cluster!.killPrimaryOf(await servers.cluster!.slotOf(KILLED_QUEUE_TAG));
      return Date.now();
    },
  },
  // One primary, one replica, three sentinels; the primary is SIGKILLed and not restarted.
  "sentinel-primary-killed": {
    async servers(db) {
      const sentinel = await startSentinelGroup({ replicas: 1, sentinels: 3 });
      return {
        sentinel,
        redisSection: { sentinel: { name: sentinel.name, nodes: sentinel.sentinels } },
        databaseSection: { url: db.databaseUrl },
        stop: () => sentinel.stop(),
      };
    },
    start: (configFile) => allInOne(configFile, 2),
    async inject({ servers }) {
      await servers.sentinel!.killPrimary();
      return Date.now();
    },
  },
  // Every process reaches Postgres through PgBouncer in transaction mode, which is SIGKILLed and
  // back 2 s later on the same port: every client connection and the transactions on them are lost.
  "pgbouncer-restart": {
    async servers(db) {
      const own = await ownRedisServers(db, false);
      const pgbouncer = await startPgBouncer({ poolMode: "transaction" });
      return {
        ...own,
        pgbouncer,
        databaseSection: {
          url: pgbouncer.urlFor(db.databaseUrl),
          pool_mode: "transaction",
          direct_url: db.databaseUrl,
        },
        stop: async () => {
          await pgbouncer.stop();
          await own.stop();
        },
      };
    },
    start: (configFile) => allInOne(configFile, 1),
    async inject({ servers }) {
      await servers.pgbouncer!.restart({ downMs: 2_000 });
      return Date.now();
    },
  },
  // Every Postgres session of svc terminated, twice, a second apart.
  "postgres-terminate": {
    start: (configFile) => allInOne(configFile, 1),
    async inject({ db }) {
      const admin = new Pool({ connectionString: db.databaseUrl, max: 1 });
      try {
        for (let i = 0; i < 2; i++) {
          if (i > 0) await sleep(1_000);
          await admin.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
          );
        }
      } finally {
        await admin.end();
      }
      return Date.now();
    },
  },
};

export async function runFaultScenario(options: FaultRunOptions): Promise<FaultRunResult> {
  const startedAt = Date.now();
  const log = (line: string) =>
    options.log?.(`[+${((Date.now() - startedAt) / 1000).toFixed(1)} s] ${options.fault}: ${line}`);
  // Every step is bounded and named in the log before it starts, so a hang fails the run with the
  // step's name instead of running into the test's own timeout with nothing to show.
  const step = <T>(what: string, ms: number, work: () => Promise<T>) => bounded(log, what, ms, work);
  const plan = PLANS[options.fault];
  const db = await step("creating its database", 60_000, () => createTestDatabase(`faults_${options.fault}`));
  const servers = await step("starting its servers", 90_000, () =>
    (plan.servers ?? ((d) => ownRedisServers(d, false)))(db),
  );
  const pool = new Pool({ connectionString: db.databaseUrl, max: 2 });
  pool.on("error", () => undefined);
  const sink = new WebhookSink();
  const statusSink = new WebhookSink();
  let running: Running | undefined;
  try {
    await step("starting the webhook sinks", 30_000, () => Promise.all([sink.start(), statusSink.start()]));
    await step("writing the rule, template and people", 30_000, () => setUpRows(pool, options.events));
    await pool.query(
      `INSERT INTO webhook_endpoints (id, url, events, secret_salt) VALUES ('whk_faults', $1, ARRAY['message.sent'], 'faults')`,
      [statusSink.url],
    );
    const { key } = await createApiKey(
      { prisma: db.prisma, now: () => new Date() },
      { name: "faults", scopes: ["events:write"] },
    );
    await db.prisma.$disconnect();
    const configFile = writeConfig(
      {
        database: servers.databaseSection,
        redis: servers.redisSection,
        prefix: `faults_${Date.now()}`,
        sinkUrl: sink.url,
        settings: options.settings,
      },
      {
        // The status sink is on loopback; a short timeout keeps a try cut off by the fault short.
        webhooks: { allow_private_urls: true, timeout_seconds: 2 },
      },
    );
    running = await step("starting svc's processes", 90_000, () => plan.start(configFile));
    log(`${running.processes.length} processes up, posting ${options.events} events`);

    const posting = postEvents({
      urls: running.apiUrls,
      key,
      count: options.events,
      concurrency: 16,
      body: (n) => ({ name: "fault.drill", recipient: `fault-${n}`, data: { n } }),
      stopAt: Date.now() + POSTING_WITHIN_MS,
    });
    const third = Math.ceil(options.events / 3);
    const thirdBy = Date.now() + 120_000;
    while (sink.total < third) {
      if (Date.now() > thirdBy)
        throw new Error(
          `${options.fault}: only ${sink.total} of ${third} sends reached the sink within 120 s`,
        );
      await sleep(20);
    }
    const sentBefore = await step("reading what was sent before the fault", 30_000, () => sentIds(pool));
    const faultAt = Date.now();
    const lastFaultAt = await step("injecting the fault", 90_000, () =>
      plan.inject({ running: running!, servers, db, configFile }),
    );
    log(`fault at ${sink.total} arrivals, over after ${lastFaultAt - faultAt} ms`);
    // In flight: arrived (or on its way, a second's grace) and not yet recorded as sent.
    await sleep(Math.max(0, faultAt + 1_000 - Date.now()));
    await step("flushing the sink", 30_000, () => sink.flush());
    const inFlight = [...sink.idsBy(faultAt + 1_000)].filter((id) => !sentBefore.has(id));

    // postEvents stops by itself at `stopAt`; the bound here only names a hang.
    const posted = await step("posting the rest of the events", POSTING_WITHIN_MS + 30_000, () => posting);
    const accepted = posted.accepted.size;
    log(`${accepted} events accepted, waiting for them to be sent`);
    const deadline = lastFaultAt + (options.finalWithinMs ?? 60_000);
    let finalAt: number | null = null;
    let sent = 0;
    while (Date.now() <= deadline) {
      // Bounded, but not logged: it runs five times a second.
      sent = await bounded(
        () => undefined,
        "counting sent messages",
        30_000,
        () => sentCount(pool),
      );
      if (sent >= accepted) {
        finalAt = Date.now();
        break;
      }
      await sleep(200);
    }
    log(`${sent} sent, waiting for their status webhooks`);
    const sentMessages = await step("reading the sent messages", 30_000, () => sentIds(pool));
    let webhooksFinalAt: number | null = null;
    while (Date.now() <= deadline) {
      await bounded(
        () => undefined,
        "flushing the status sink",
        30_000,
        () => statusSink.flush(),
      );
      if ([...sentMessages].every((id) => statusSink.eventsBySubject.has(id))) {
        webhooksFinalAt = Date.now();
        break;
      }
      await sleep(200);
    }
    log(`${statusSink.eventsBySubject.size} status webhooks, reading the outcome`);
    const lost = await step("counting lost events", 30_000, () => lostCount(pool));
    await step("flushing the sink", 30_000, () => sink.flush());
    const repeated = sink.repeated();
    const killed = new Set(running.processes.filter((p) => p.killed).map((p) => p.name));
    // The sink answers 200 to every request it reads, so a failed attempt means svc stopped
    // waiting for the answer (a timeout on a starved machine): DECISIONS' "a timeout after the
    // provider accepted", which repeats the send by design.
    const unanswered = await step("reading failed attempts", 30_000, () =>
      idsWithFailedAttempts(pool, [...repeated.keys()]),
    );
    const byFault = [...repeated]
      .filter(
        ([, arrivals]) => !SESSIONS_LOST.has(options.fault) && !arrivals.some((a) => killed.has(a.from)),
      )
      .map(([id]) => id);
    const unexplained = byFault.filter((id) => !unanswered.has(id));
    const warnings = running.processes.flatMap((p) => p.warnings);
    return {
      fault: options.fault,
      accepted,
      sent,
      lost,
      duplicates: [...repeated.values()].reduce((sum, arrivals) => sum + arrivals.length - 1, 0),
      repeatsUnexplained: unexplained.length,
      repeatsAfterTimeout: byFault.length - unexplained.length,
      unexplainedTraces: await step("tracing repeats", 30_000, () =>
        traceRepeats(pool, sink, unexplained.slice(0, 5), faultAt),
      ),
      sendsAfterLostLease: warnings.filter((w) => w.message === "delivery lease lost after sending").length,
      inFlightAtFault: inFlight.length,
      fiveXx: posted.fiveXx.length,
      internalErrors: posted.fiveXx.filter((a) => a.status === 500).length,
      internalErrorCauses: [
        ...new Set(warnings.filter((w) => w.message === "request failed").map((w) => w.error ?? "")),
      ].slice(0, 5),
      networkErrors: posted.networkErrors,
      secondsToFinal: finalAt === null ? null : Math.max(0, finalAt - lastFaultAt) / 1000,
      webhooksMissing: [...sentMessages].filter((id) => !statusSink.eventsBySubject.has(id)).length,
      webhooksInvented: [...statusSink.eventsBySubject].filter(
        ([subject, events]) => events.size > 1 || !sentMessages.has(subject),
      ).length,
      webhookRepeats: [...statusSink.repeated().values()].reduce((sum, a) => sum + a.length - 1, 0),
      webhooksSecondsToFinal:
        webhooksFinalAt === null ? null : Math.max(0, webhooksFinalAt - lastFaultAt) / 1000,
    };
  } finally {
    // Clean-up is bounded too, but never throws: it must not hide the run's own error.
    const cleanUp = (what: string, work: () => Promise<unknown>) =>
      bounded(log, what, 30_000, work).catch((error: Error) => log(`clean-up: ${error.message}`));
    await cleanUp("stopping svc's processes", () =>
      Promise.all((running?.processes ?? []).map((p) => p.kill())),
    );
    await cleanUp("closing the pool", () => pool.end());
    await cleanUp("stopping the sinks", () => Promise.all([sink.close(), statusSink.close()]));
    await cleanUp("stopping its servers", () => servers.stop());
    await cleanUp("dropping its database", () => db.drop());
    log("done");
  }
}

/**
 * Faults that end svc's database sessions: a send whose `sent` write was on a lost session is
 * sent again once its lease runs out (docs/operations.md "Recovery guarantees").
 */
const SESSIONS_LOST: ReadonlySet<FaultName> = new Set(["postgres-terminate", "pgbouncer-restart"]);

/** How long the clients keep posting (and retrying) events before they give up on the rest. */
const POSTING_WITHIN_MS = 150_000;

/** `work`, or an error naming `what` once `ms` passed without it settling. */
async function bounded<T>(
  log: (line: string) => void,
  what: string,
  ms: number,
  work: () => Promise<T>,
): Promise<T> {
  log(what);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([work(), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** One template, one rule sending every `fault.drill` on the webhook channel, one person per event. */
async function setUpRows(pool: Pool, events: number): Promise<void> {
  await pool.query(`INSERT INTO templates (key, locales, updated_at) VALUES ('drill', $1, now())`, [
    JSON.stringify({ en: { title: "Drill {{ data.n }}", body: "Event {{ data.n }}" } }),
  ]);
  await pool.query(
    `INSERT INTO rules (key, event, template, category, channels, condition, digest, updated_at)
     VALUES ('drill', 'fault.drill', 'drill', 'transactional', ARRAY['hook'], NULL, NULL, now())`,
  );
  const ids = Array.from({ length: events }, () => newId("recipient"));
  await pool.query(
    `INSERT INTO recipients (id, external_id, updated_at)
     SELECT id, 'fault-' || (n - 1), now() FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n)`,
    [ids],
  );
  await pool.query(
    `INSERT INTO addresses (recipient_id, channel, value) SELECT r, 'hook', 'hook-' || r FROM unnest($1::text[]) AS r`,
    [ids],
  );
}

async function sentIds(pool: Pool): Promise<Set<string>> {
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id FROM messages WHERE status IN ('sent', 'delivered')`,
  );
  return new Set(rows.map((r) => r.id));
}

async function traceRepeats(pool: Pool, sink: WebhookSink, ids: string[], faultAt: number) {
  const { rows } = await pool.query<{ message_id: string; at: Date; ok: boolean; error: string | null }>(
    `SELECT message_id, at, ok, error FROM delivery_attempts WHERE message_id = ANY($1::text[]) ORDER BY at`,
    [ids],
  );
  return ids.map((id) => ({
    id,
    arrivals: (sink.received.get(id) ?? []).map((a) => ({ at: a.at - faultAt, from: a.from })),
    attempts: rows
      .filter((r) => r.message_id === id)
      .map((r) => ({ at: r.at.getTime() - faultAt, ok: r.ok, error: r.error })),
  }));
}

async function idsWithFailedAttempts(pool: Pool, ids: string[]): Promise<Set<string>> {
  const { rows } = await pool.query<{ message_id: string }>(
    `SELECT DISTINCT message_id FROM delivery_attempts WHERE message_id = ANY($1::text[]) AND NOT ok`,
    [ids],
  );
  return new Set(rows.map((r) => r.message_id));
}

async function sentCount(pool: Pool): Promise<number> {
  const { rows } = await pool.query(
    `SELECT count(*)::int AS n FROM messages WHERE status IN ('sent', 'delivered')`,
  );
  return rows[0].n as number;
}

async function lostCount(pool: Pool): Promise<number> {
  const { rows } = await pool.query(
    `SELECT count(*)::int AS n FROM events e
      WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.event_id = e.id AND m.status IN ('sent', 'delivered'))`,
  );
  return rows[0].n as number;
}
