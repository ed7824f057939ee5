// Reference servers for the accept-path benchmark (plain CommonJS, no build):
//   node bench/reference/bare-apps.js noio <port>
//   node bench/reference/bare-apps.js insert-add <port> <databaseUrl> <redisUrl> <prefix>
// `noio` parses the JSON body and answers 202; `insert-add` also does one Postgres INSERT and one
// BullMQ add per request: the simplest correct accept path, which svc must match.
const express = require("express");
const { randomUUID } = require("node:crypto");

const [mode, port, databaseUrl, redisUrl, prefix] = process.argv.slice(2);
const app = express();
app.use(express.json());
app.get("/ready", (_req, res) => res.send("ok"));

async function main() {
  if (mode === "noio") {
    app.post("/events", (req, res) =>
      res.status(202).json({ id: randomUUID(), name: req.body.name, status: "pending" }),
    );
  } else {
    const { Pool } = require("pg");
    const { Queue } = require("bullmq");
    const pool = new Pool({ connectionString: databaseUrl, max: 10 });
    await pool.query(
      "CREATE TABLE IF NOT EXISTS bench_events (id uuid PRIMARY KEY, name text NOT NULL, data jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
    );
    const queue = new Queue("bench-ingest", { connection: { url: redisUrl }, prefix });
    app.post("/events", async (req, res) => {
      const id = randomUUID();
      await pool.query("INSERT INTO bench_events (id, name, data) VALUES ($1, $2, $3)", [
        id,
        req.body.name,
        req.body.data ?? {},
      ]);
      await queue.add("ingest", { id }, { jobId: id, removeOnComplete: true });
      res.status(202).json({ id, name: req.body.name, status: "pending" });
    });
  }
  app.listen(Number(port), "127.0.0.1");
}
main();
