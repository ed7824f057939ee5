import { setTimeout as sleep } from "node:timers/promises";
import type { Job } from "bullmq";
import { newId } from "@svc/core";
import { ingestJobFor } from "@svc/engine";
import { createQueues, type BulkItem, type Queues } from "@svc/queue";
import { createTestDatabase, testRedisPrefix, type TestDatabase, type TestRedisPrefix } from "@svc/testkit";
import { startFixture, stopChild, waitFor, type ChildWorker, startWarmWorker } from "./harness";

// No accepted event is lost (docs/events.md), also in batch jobs: a worker SIGKILLed again and
// again while it drains 2,000 pending events, queued as `ingest-events` jobs of 16 the way the
// accept path's group commit leaves them, strands nothing and doubles nothing. Every event ends
// `processed` with exactly one message and one outcome, every job completes, and the killed
// worker's jobs come back through BullMQ's stalled-job check; their events that had committed are
// skipped by the rerun (and their deliveries announced again), not composed a second time.
//
// The jobs arrive in five slices, one per worker, as accepted traffic would. A kill waits for the
// jobs already orphaned twice to complete (a third orphaning makes a job dead by BullMQ's
// maxStalledCount), and killed jobs come back only once their lock has run out; a worker drains
// 2,000 events in a few seconds, so with every job queued at once it would drain the rest during
// that wait and the later kills would find nothing left to interrupt.
//
// Workers are child processes with the production wiring (fixtures/drain-worker.ts) running only
// the ingest and policy queues: nothing delivers, so the messages stay `queued` and the delivery
// queue shows what ingest announced. No sweeps run either: recovery is the stall check alone.
//
// What keeps a rerun from writing twice (none of which this test weakens): the event's status,
// read under its person's lock in the same transaction that writes the messages, outcomes and
// `processed`; the messages' unique dedup key `evt:<event>:<rule>`; event_outcomes' primary key
// (event, rule). A rerun that got past the first would trip the others rather than write again.

const TOTAL = 2000;
const PEOPLE = 300;
/** Events per `ingest-events` job: the size of an accept commit batch under load (bench/lib). */
const PER_JOB = 16;
const KILLS = 4;
/** Events a worker processes after its slice arrives, before it is killed: it dies holding jobs. */
const EVENTS_BEFORE_KILL = 150;
const RULE = "kill-notice";
/** Job lock of the workers: a killed worker's jobs count as stalled this long after its last renewal. */
const LOCK_MS = 1000;

let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
const children: ChildWorker[] = [];
let warm: ChildWorker | undefined;
let eventIds: string[] = [];
/** The accept-shaped jobs, enqueued slice by slice by the test; their ids as they go in. */
let jobItems: BulkItem[] = [];
const jobIds: string[] = [];

/** A worker process running ingest and policy, loaded and waiting for SIGUSR2 to take jobs. */
const spawnWorker = () => {
  const child = startFixture("drain-worker.ts", {
    START_ON_SIGNAL: "1",
    QUEUES: "ingest,policy",
    DATABASE_URL: db.databaseUrl,
    REDIS_URL: redis.redisUrl,
    PREFIX: redis.prefix,
    SVC_SECRET_KEY: "s".repeat(48),
    LOCK_MS: String(LOCK_MS),
    LEASE_SECONDS: "3",
    SWEEP_MS: "500",
  });
  children.push(child);
  return child;
};

const processedCount = () => db.prisma.event.count({ where: { status: "processed" } });

async function processedAmong(ids: string[]): Promise<string[]> {
  const rows = await db.prisma.event.findMany({
    where: { id: { in: ids }, status: "processed" },
    select: { id: true },
  });
  return rows.map((row) => row.id);
}

beforeAll(async () => {
  db = await createTestDatabase("ingest_kill");
  redis = testRedisPrefix("ingest-kill");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  await queues.ready();
  warm = spawnWorker(); // compiles while the events go in
  const prisma = db.prisma;
  await prisma.template.create({
    data: { key: "notice", locales: { en: { title: "Notice {{ data.n }}", body: "Body {{ data.n }}" } } },
  });
  await prisma.rule.create({
    data: {
      key: RULE,
      event: "kill.happened",
      template: "notice",
      category: "transactional",
      channels: ["hook"],
    },
  });
  const people = Array.from({ length: PEOPLE }, (_, i) => ({
    id: newId("recipient"),
    external_id: `p-${i}`,
  }));
  await prisma.recipient.createMany({ data: people });
  await prisma.address.createMany({
    data: people.map((p) => ({ recipient_id: p.id, channel: "hook", value: `device-${p.external_id}` })),
  });

  // As bench/drain.ts: `pending` rows from the API, then their jobs as the accept path leaves
  // them. People drawn at random, so they repeat inside jobs and inside the worker's batches of
  // several jobs (their later events wait for a next round).
  const rows = Array.from({ length: TOTAL }, (_, n) => ({
    id: newId("event"),
    person: `p-${Math.floor(Math.random() * PEOPLE)}`,
    data: JSON.stringify({ n }),
  }));
  await prisma.$executeRawUnsafe(
    `INSERT INTO events (id, name, source, sender, recipient_external_id, data, created_at)
     SELECT id, 'kill.happened', 'api', 'backend', r, d::jsonb, clock_timestamp()
       FROM unnest($1::text[], $2::text[], $3::text[]) AS t(id, r, d)`,
    rows.map((r) => r.id),
    rows.map((r) => r.person),
    rows.map((r) => r.data),
  );
  eventIds = rows.map((r) => r.id);
  const chunks: { ids: string[]; people: string[] }[] = [];
  for (let i = 0; i < TOTAL; i += PER_JOB) {
    const chunk = rows.slice(i, i + PER_JOB);
    chunks.push({ ids: chunk.map((r) => r.id), people: chunk.map((r) => r.person) });
  }
  jobItems = chunks.map((chunk) => ingestJobFor(chunk.ids));
  // Some jobs hold one person twice: a person's second event really waits for a next round.
  expect(chunks.filter((chunk) => new Set(chunk.people).size < chunk.people.length).length).toBeGreaterThan(
    0,
  );
}, 120_000);

afterAll(async () => {
  await Promise.all(children.map(stopChild));
  await queues?.close();
  await db?.drop();
  await redis?.cleanup();
});

test(
  "SIGKILLed workers mid-drain of ingest-events jobs: every event processed once, one message and one outcome each, every job completed",
  async () => {
    const ingest = queues.queue("ingest");
    const perSlice = Math.ceil(jobItems.length / (KILLS + 1));
    const feed = async (slice: number) => {
      jobIds.push(...(await queues.enqueueBulk(jobItems.slice(slice * perSlice, (slice + 1) * perSlice))));
    };

    // The events each killed worker had committed in the jobs it held: the reruns must skip these
    // (they are processed) and ingest the rest.
    const committedByKilled = new Set<string>();
    // Per job, its starts (BullMQ's attemptsStarted) that a kill orphaned. The stall check moves
    // each orphaned start back to wait once; a job still sitting in the active list at the next
    // kill (not moved back yet) is the same start, not a second one.
    const orphanedStarts = new Map<string, Set<number>>();
    const perKill: { jobs: number; events: number; committed: number }[] = [];
    let worker = warm!;
    for (let kill = 0; kill < KILLS; kill++) {
      await startWarmWorker(worker);
      const following = spawnWorker(); // compiles while this one drains
      // Jobs orphaned twice complete before the next kill: a rerun may be killed too, but a job
      // orphaned three times counts for BullMQ as one that crashes its workers (maxStalledCount
      // 2) and fails for good; its events would wait for the pending sweep, not this test's topic.
      const orphanedTwice = [...orphanedStarts].filter(([, starts]) => starts.size >= 2).map(([id]) => id);
      await waitFor(async () => {
        const states = await Promise.all(orphanedTwice.map((id) => ingest.getJobState(id)));
        return states.every((state) => state === "completed");
      }, 30_000);
      // This worker's slice, then the kill once it is into it (beside any reruns still going).
      const before = await processedCount();
      await feed(kill);
      await waitFor(async () => (await processedCount()) >= before + EVENTS_BEFORE_KILL, 30_000);
      worker.process.kill("SIGKILL");
      expect(await worker.exited).toEqual({ code: null, signal: "SIGKILL" });
      // A COMMIT already on its way lands by now; the rest roll back as the connections close.
      // And the dead worker's locks run out, so the next worker's first stall checks move its
      // jobs back to wait (at the front) within moments: reruns start early, and may be killed.
      await sleep(LOCK_MS + 200);
      // No other worker runs: the active list is what the dead one held (plus any job of the
      // kill before that the stall check had not moved back yet).
      const held: Job[] = await ingest.getActive();
      const heldEvents = held.flatMap((job) => (job.data as { eventIds: string[] }).eventIds);
      const committed = await processedAmong(heldEvents);
      for (const job of held) {
        const starts = orphanedStarts.get(job.id!) ?? new Set<number>();
        orphanedStarts.set(job.id!, starts.add(job.attemptsStarted));
      }
      for (const id of committed) committedByKilled.add(id);
      perKill.push({ jobs: held.length, events: heldEvents.length, committed: committed.length });
      worker = following;
    }

    await startWarmWorker(worker);
    await feed(KILLS);
    expect(jobIds).toHaveLength(TOTAL / PER_JOB);
    const counts = await waitFor(async () => {
      const c = await ingest.getJobCounts("wait", "active", "delayed", "prioritized", "completed", "failed");
      return (c.completed ?? 0) + (c.failed ?? 0) === jobIds.length ? c : undefined;
    }, 60_000);
    // Every job completed: none dead (listed with their reasons if any), none waiting for a retry.
    const dead = await ingest.getJobs(["failed"]);
    expect(
      dead.map((job) => ({
        id: job.id,
        reason: job.failedReason,
        stalled: job.stalledCounter,
        attemptsMade: job.attemptsMade,
        orphanedStarts: [...(orphanedStarts.get(job.id!) ?? [])],
      })),
    ).toEqual([]);
    expect(counts).toEqual({
      wait: 0,
      active: 0,
      delayed: 0,
      prioritized: 0,
      completed: jobIds.length,
      failed: 0,
    });

    // Every event processed exactly once (a commit adds 1 to attempts; a rolled-back one does not).
    const events = await db.prisma.event.groupBy({ by: ["status", "attempts"], _count: true });
    expect(events.map((g) => [g.status, g.attempts, g._count])).toEqual([["processed", 1, TOTAL]]);

    // Exactly one message per event, for this rule, and nothing else.
    expect(await db.prisma.message.count()).toBe(TOTAL);
    const doubled = await db.prisma.$queryRaw<{ event_id: string; n: number }[]>`
      SELECT event_id, count(*)::int AS n FROM messages GROUP BY event_id HAVING count(*) > 1`;
    expect(doubled).toEqual([]);
    const messages = await db.prisma.message.findMany({
      select: { id: true, event_id: true, rule: true, dedup_key: true, status: true },
    });
    expect(new Set(messages.map((m) => m.event_id))).toEqual(new Set(eventIds));
    expect(messages.filter((m) => m.rule !== RULE || m.dedup_key !== `evt:${m.event_id}:${RULE}`)).toEqual(
      [],
    );
    expect(messages.filter((m) => m.status !== "queued")).toEqual([]);

    // Exactly one outcome per (event, rule), naming that event's message.
    expect(await db.prisma.eventOutcome.count()).toBe(TOTAL);
    const doubledOutcomes = await db.prisma.$queryRaw<{ event_id: string }[]>`
      SELECT event_id FROM event_outcomes GROUP BY event_id, rule_key HAVING count(*) > 1`;
    expect(doubledOutcomes).toEqual([]);
    const [{ linked } = { linked: 0 }] = await db.prisma.$queryRaw<{ linked: number }[]>`
      SELECT count(*)::int AS linked FROM event_outcomes o
        JOIN messages m ON m.id = o.message_id AND m.event_id = o.event_id
       WHERE o.rule_key = ${RULE} AND o.matched AND o.status = 'queued'`;
    expect(linked).toBe(TOTAL);

    // Every message's delivery was announced, including those a killed worker committed and
    // never got to announce (the rerun re-reads and enqueues them). Read from the jobs' payloads,
    // whatever shape the delivery jobs take.
    const deliveryJobs = await queues.queue("delivery").getJobs(["wait", "delayed", "prioritized"]);
    const announced = new Set(
      deliveryJobs.flatMap((job) => {
        const data = job.data as { messageId?: string; messages?: { messageId: string }[] };
        return data.messages ? data.messages.map((m) => m.messageId) : [data.messageId!];
      }),
    );
    expect(messages.filter((m) => !announced.has(m.id)).map((m) => m.id)).toEqual([]);

    // Jobs: the ones the kills stranded came back through the stall check, the others ran once,
    // and no attempt failed. Each job's last run reports every one of its events: processed by
    // that run, or skipped because a killed run had committed it. So the skips are exactly the
    // events the killed workers committed, and nothing was ingested twice.
    const jobs = await ingest.getJobs(["completed"]);
    expect(jobs.map((job) => job.id).sort()).toEqual([...jobIds].sort());
    const summaries = jobs.map((job) => ({
      id: job.id!,
      events: (job.data as { eventIds: string[] }).eventIds.length,
      stalled: job.stalledCounter,
      attemptsMade: job.attemptsMade,
      result: job.returnvalue as { processed: number; skipped: number; failed: number },
    }));
    expect(summaries.filter((s) => s.attemptsMade !== 1 || s.result.failed !== 0)).toEqual([]);
    expect(summaries.filter((s) => s.result.processed + s.result.skipped !== s.events)).toEqual([]);
    // Each orphaned start came back through the stall check once; no other job stalled.
    expect(summaries.filter((s) => s.stalled !== (orphanedStarts.get(s.id)?.size ?? 0))).toEqual([]);
    const skipped = summaries.reduce((sum, s) => sum + s.result.skipped, 0);
    const processed = summaries.reduce((sum, s) => sum + s.result.processed, 0);
    expect(skipped).toBe(committedByKilled.size);
    expect(processed).toBe(TOTAL - committedByKilled.size);
    // Not vacuous: every kill caught jobs in flight, and among them events already
    // committed, so the stall check, the reruns and their skips were really exercised.
    expect(perKill.filter((k) => k.jobs === 0)).toEqual([]);
    expect(committedByKilled.size).toBeGreaterThan(0);

    console.log(
      `kills ${KILLS}: held jobs ${perKill.map((k) => k.jobs).join("+")}, their events ` +
        `${perKill.map((k) => k.events).join("+")}, of which committed ${perKill.map((k) => k.committed).join("+")}; ` +
        `stranded jobs ${orphanedStarts.size}, ` +
        `${summaries.filter((s) => s.stalled > 1).length} of them twice, skipped by reruns ${skipped}; delivery jobs ${deliveryJobs.length} for ${announced.size} messages`,
    );
  },
  // 9-13 s on the 2-core machine (worker start-ups included, two copies at once); room to spare.
  90_000,
);
