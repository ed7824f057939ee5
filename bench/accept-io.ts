/**
 * CPU and time per call of the accept path's two I/O steps, one group commit of 14 events (the
 * batch size `bench:accept` sees at 32 clients), each way it could be sent:
 *   - the batch INSERT through Prisma's raw query, through `pg`, and through `pg` as a named
 *     prepared statement (what commit-events does);
 *   - the batch's ingest job through BullMQ's addBulk (a MULTI even for one job) and through add
 *     (what enqueueBulk does for a lone job).
 * Sequential calls on an otherwise idle connection: this measures the client's cost per call,
 * not throughput. Run: `npm run build && npx ts-node --transpile-only bench/accept-io.ts`.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import { newId } from "@svc/core";
import { createQueues } from "@svc/queue";
import {
  createPrisma,
  dropDatabase,
  INSERT_EVENTS_SQL,
  migrate,
  pgPoolOf,
  withDatabaseName,
  type NewEvent,
} from "@svc/store";
import { fmt } from "./lib/results";

const SERVER = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const BATCH = 14;

function batch(): NewEvent[] {
  const now = new Date();
  return Array.from({ length: BATCH }, (_, i) => ({
    id: newId("event"),
    name: "order.created",
    sender: "backend",
    agent_key: null,
    api_key_id: "key_bench",
    idempotency_key: null,
    request_hash: null,
    idempotency_expires_at: null,
    recipient_external_id: `user-${i}`,
    recipient_profile: null,
    data: { order: i, total: "42.00" },
    created_at: now,
  }));
}

async function measure(label: string, call: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 200; i++) await call(); // warm-up
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await call();
  const cpu = process.cpuUsage(cpuBefore);
  const wallUs = Number(process.hrtime.bigint() - started) / 1000 / CALLS;
  console.log(
    `${label.padEnd(44)} ${fmt((cpu.user + cpu.system) / CALLS).padStart(5)} µs CPU, ${fmt(wallUs).padStart(5)} µs per call`,
  );
}

async function main() {
  const tag = randomBytes(3).toString("hex");
  const databaseUrl = withDatabaseName(SERVER, `svc_bench_accept_io_${tag}`);
  await migrate({
    databaseUrl,
    migrationsDir: path.resolve(__dirname, "../prisma/migrations"),
    createDatabase: true,
  });
  const prisma = createPrisma({ databaseUrl });
  const pool = pgPoolOf(prisma);
  const queues = createQueues({ redisUrl: REDIS_URL, prefix: `svc-bench-accept-io-${tag}` });
  await queues.ready();
  const ingest = queues.queue("ingest");
  const jobOf = () => {
    const eventIds = batch().map((row) => row.id);
    return {
      name: "ingest-events",
      data: { eventIds },
      opts: { jobId: `${eventIds[0]}-batch`, removeOnComplete: true },
    };
  };
  try {
    console.log(
      `${CALLS} calls each, ${BATCH} events per batch (building the batch included: see the last line)`,
    );
    // Two passes: the first also warms up the JIT and the connections; quote the second.
    for (const pass of [1, 2]) {
      console.log(`pass ${pass}`);
      await measure("INSERT via Prisma $queryRawUnsafe", () =>
        prisma.$queryRawUnsafe(INSERT_EVENTS_SQL, JSON.stringify(batch())),
      );
      await measure("INSERT via pg", () => pool.query(INSERT_EVENTS_SQL, [JSON.stringify(batch())]));
      await measure("INSERT via pg, named prepared statement", () =>
        pool.query({
          name: "bench_insert_events",
          text: INSERT_EVENTS_SQL,
          values: [JSON.stringify(batch())],
        }),
      );
      await measure("ingest job via Queue.addBulk (one job)", () => ingest.addBulk([jobOf()]));
      await measure("ingest job via Queue.add", () => {
        const job = jobOf();
        return ingest.add(job.name, job.data, job.opts);
      });
      await measure("building the batch and its JSON only", async () => JSON.stringify(batch()));
    }
  } finally {
    await queues.close();
    await prisma.$disconnect();
    await dropDatabase(databaseUrl);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
