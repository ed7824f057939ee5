// Reference for the compose benchmark (plain CommonJS, no build): a bare chain of two BullMQ
// queues, each step one Postgres UPDATE of the item's row in `bench_chain`; step a adds step b.
//   node bench/reference/bare-chain.js <databaseUrl> <redisUrl> <prefix> <concurrency>
// (Recreated by the delivery helper after its own file overwrote this one by mistake; same
// interface as bench/compose.ts expects: queues chain-a and chain-b, `step` 1 then 2.)
const { Pool } = require("pg");
const { Queue, Worker } = require("bullmq");

const [databaseUrl, redisUrl, prefix, concurrency] = process.argv.slice(2);
const pool = new Pool({ connectionString: databaseUrl, max: 10 });
const connection = { url: redisUrl, maxRetriesPerRequest: null };
const chainB = new Queue("chain-b", { connection, prefix });
const options = { connection, prefix, concurrency: Number(concurrency ?? 20) };
const workers = [
  new Worker(
    "chain-a",
    async (job) => {
      await pool.query("UPDATE bench_chain SET step = 1 WHERE id = $1", [job.data.id]);
      await chainB.add("b", job.data, { jobId: `b-${job.data.id}`, removeOnComplete: true });
    },
    options,
  ),
  new Worker(
    "chain-b",
    (job) => pool.query("UPDATE bench_chain SET step = 2 WHERE id = $1", [job.data.id]),
    options,
  ),
];

async function close() {
  await Promise.all(workers.map((w) => w.close()));
  await chainB.close();
  await pool.end();
  process.exit(0);
}
process.on("SIGTERM", close);
process.on("SIGINT", close);
