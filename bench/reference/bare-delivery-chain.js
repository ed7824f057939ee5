// Reference for the delivery-drain benchmark (plain CommonJS, no build): a bare chain of three
// BullMQ queues, each step doing one Postgres UPDATE of the item's row (or none) and adding the
// next step's job. Run as a worker process:
//   node bench/reference/bare-delivery-chain.js <databaseUrl> <redisUrl> <prefix> <update|noupdate>
// The driver (bench/drain.ts) creates the table and rows, and adds the first step's jobs.
const { Pool } = require("pg");
const { Queue, Worker } = require("bullmq");

const [databaseUrl, redisUrl, prefix, mode] = process.argv.slice(2);
const STEPS = ["chain-a", "chain-b", "chain-c"];
// The same concurrency as svc's defaults for ingest, policy and delivery.
const CONCURRENCY = { "chain-a": 20, "chain-b": 20, "chain-c": 50 };

const pool = new Pool({ connectionString: databaseUrl, max: 10 });
const connection = { url: redisUrl, maxRetriesPerRequest: null };
const queues = STEPS.map((name) => new Queue(name, { connection, prefix }));
const workers = STEPS.map(
  (name, step) =>
    new Worker(
      name,
      async (job) => {
        if (mode === "update") {
          // The last step marks the row sent; the others record the step reached.
          if (step === STEPS.length - 1)
            await pool.query("UPDATE bench_items SET step = $2, sent_at = clock_timestamp() WHERE id = $1", [
              job.data.id,
              step,
            ]);
          else await pool.query("UPDATE bench_items SET step = $2 WHERE id = $1", [job.data.id, step]);
        }
        const next = queues[step + 1];
        // Only the last step keeps its completed jobs: the driver reads their finish times.
        if (next)
          await next.add("step", job.data, {
            jobId: job.data.id,
            removeOnComplete: step + 1 < STEPS.length - 1,
          });
      },
      { connection, prefix, concurrency: CONCURRENCY[name] },
    ),
);

async function close() {
  await Promise.all(workers.map((w) => w.close()));
  await Promise.all(queues.map((q) => q.close()));
  await pool.end();
  process.exit(0);
}
process.on("SIGTERM", close);
process.on("SIGINT", close);
