/**
 * In-app inbox streams at scale (docs/benchmarks.md "Inbox streams"). Run: `npm run bench:inbox`
 * (from source, no build needed).
 *
 * Per scenario (one API process, then two), every process its own Node process:
 * - API processes (`worker.embedded: false`), the worker process running the outbox relay
 *   (`--queues callbacks`), and a producer process that delivers items the way the `inbox`
 *   provider does (bench/lib/inbox-producer.ts); this process holds the streams as clients.
 * - Idle: BENCH_STREAMS people each open one stream (spread over the API processes); memory per
 *   stream is the growth of the API processes' resident memory divided by the streams they hold.
 * - Load: BENCH_RATE new items per second for BENCH_SECONDS, each to a random one of those people.
 *   Latency is from the item's `created_at` (set before its transaction) to its `item` event here;
 *   CPU per item is the CPU time (user + system, from /proc) of each process over the load phase
 *   divided by the items.
 *
 * Env: BENCH_STREAMS (10000), BENCH_RATE (1000), BENCH_SECONDS (20), BENCH_SCENARIOS ("1,2"),
 * DATABASE_URL (the server, any database), REDIS_URL; BENCH_WRITE=0 prints without writing docs. 10,000 sockets need an open-files limit
 * above that in this process and in the API process: the bench raises its own soft limit by
 * re-running itself under `ulimit -n` (children inherit it).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent } from "node:http";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "pg";
import { mintInboxToken, newId, newLinkNonce } from "@svc/core";
import { dropDatabase, withDatabaseName } from "@svc/store";
import { freePort, openEventStream, type EventStream } from "@svc/testkit";
import { fmt, writeSection } from "./lib/results";

const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 1_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? "1,2").split(",").map(Number);
const SERVER = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const ROOT = path.resolve(__dirname, "..");
const REGISTER = path.join(ROOT, "scripts/register-ts.cjs");
const FILES_NEEDED = STREAMS + 2_000;

function openFilesLimit(): number {
  return Number(execFileSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).trim());
}

// Node cannot raise its own limit: run again under a shell that does (root, or within the hard limit).
if (openFilesLimit() < FILES_NEEDED && !process.env.BENCH_ULIMIT_RAISED) {
  const args = process.argv.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const child = spawn("sh", ["-c", `ulimit -n ${FILES_NEEDED} && exec ${args}`], {
    stdio: "inherit",
    env: { ...process.env, BENCH_ULIMIT_RAISED: "1" },
  });
  child.on("exit", (code) => process.exit(code ?? 1));
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

interface Running {
  child: ChildProcess;
  name: string;
  stderr: string;
}

function startTs(name: string, script: string, args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, ["-r", REGISTER, path.join(ROOT, script), ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const running: Running = { child, name, stderr: "" };
  child.stderr!.on("data", (chunk) => (running.stderr = (running.stderr + chunk).slice(-4000)));
  child.stdout!.on("data", () => undefined);
  return running;
}

async function until(url: string, running: Running): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (running.child.exitCode !== null) throw new Error(`${running.name} exited: ${running.stderr}`);
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await sleep(250);
  }
  throw new Error(`${running.name} not ready: ${running.stderr}`);
}

async function stop(running: Running): Promise<void> {
  if (running.child.exitCode !== null) return;
  const exited = new Promise((resolve) => running.child.once("exit", resolve));
  running.child.kill("SIGTERM");
  await Promise.race([exited, sleep(10_000).then(() => running.child.kill("SIGKILL"))]);
}

/** CPU seconds (user + system) and resident memory (bytes) of a process, from /proc. */
function usage(pid: number): { cpu: number; rss: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
  return { cpu: ticks / 100, rss };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

interface Result {
  apis: number;
  streams: number;
  memoryPerStreamKiB: number;
  rateTarget: number;
  rateReached: number;
  items: number;
  received: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  apiCpuMsPerItem: number;
  relayCpuMsPerItem: number;
  producerCpuMsPerItem: number;
}

async function scenario(apis: number): Promise<Result> {
  const tag = randomBytes(3).toString("hex");
  const databaseUrl = withDatabaseName(SERVER, `svc_bench_inbox_${tag}`);
  const prefix = `svc-bench-inbox-${tag}`;
  const secret = randomBytes(32).toString("base64url");
  const common = {
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    SVC_SECRET_KEY: secret,
    SVC__REDIS__PREFIX: prefix,
    SVC__WORKER__EMBEDDED: "false",
    SVC__API__RATE_LIMIT__ENABLED: "false",
    SVC__LOG__LEVEL: "warn",
    SVC__CHANNELS__IN_APP__PROVIDER: "inbox",
    SVC__INBOX__MAX_STREAMS: String(STREAMS + 1_000),
  };
  const ports: number[] = [];
  for (let i = 0; i < apis; i++) ports.push(await freePort());
  const metricsPort = await freePort();
  const running: Running[] = [];
  const streams: EventStream[] = [];
  const db = new Pool({ connectionString: databaseUrl, max: 4 });
  try {
    for (const port of ports) {
      const api = startTs(`api:${port}`, "apps/api/src/main.ts", [], { ...common, PORT: String(port) });
      running.push(api);
      await until(`http://127.0.0.1:${port}/readyz`, api); // the first one creates and migrates the database
    }
    const relay = startTs("relay", "apps/worker/src/main.ts", ["--queues", "callbacks"], {
      ...common,
      SVC__WORKER__METRICS_PORT: String(metricsPort),
    });
    running.push(relay);
    await until(`http://127.0.0.1:${metricsPort}/metrics`, relay);

    // People with preference tokens, and the messages the producer will deliver to them.
    const people = Array.from({ length: STREAMS }, () => ({ id: newId("recipient"), nonce: newLinkNonce() }));
    const items = RATE * SECONDS;
    for (let i = 0; i < STREAMS; i += 5_000) {
      const slice = people.slice(i, i + 5_000);
      await db.query(
        `INSERT INTO recipients (id, external_id) SELECT id, 'bench-' || id FROM unnest($1::text[]) AS id`,
        [slice.map((p) => p.id)],
      );
      await db.query(
        `INSERT INTO preference_tokens (recipient_id, nonce, token_hash) SELECT id, nonce, md5(id) FROM unnest($1::text[], $2::text[]) AS t(id, nonce)`,
        [slice.map((p) => p.id), slice.map((p) => p.nonce)],
      );
    }
    const messageIds = Array.from({ length: items }, () => newId("message"));
    const content = JSON.stringify({
      title: "New comment",
      body: "Ada replied to your post.",
      url: "https://app.example/p/1",
      thread: null,
      locale: "en",
      channel: "in_app",
    });
    for (let i = 0; i < items; i += 5_000) {
      const slice = messageIds.slice(i, i + 5_000);
      await db.query(
        `INSERT INTO messages (id, status, recipient_id, recipient_external_id, sender, category, importance, claimed_importance, channels, content, send_at, link_nonce)
         SELECT m.id, 'sending', r.id, 'bench-' || r.id, 'backend', 'transactional', 'normal', 'normal', '{in_app}', $3::jsonb, now(), md5(m.id)
           FROM unnest($1::text[], $2::text[]) AS x(mid, rid), LATERAL (SELECT x.mid AS id) m, LATERAL (SELECT x.rid AS id) r`,
        [slice, slice.map(() => people[Math.floor(Math.random() * STREAMS)]!.id), content],
      );
    }

    // Idle streams.
    const apiPids = running.filter((r) => r.name.startsWith("api")).map((r) => r.child.pid!);
    await sleep(2_000);
    const before = apiPids.map((pid) => usage(pid).rss);
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const expiresAt = Math.floor(Date.now() / 1000) + 3_600;
    const latencies: number[] = [];
    let received = 0;
    for (let i = 0; i < STREAMS; i += 250) {
      const batch = people.slice(i, i + 250).map(async (person, j) => {
        const port = ports[(i + j) % apis]!;
        const token = mintInboxToken(secret, { recipientId: person.id, expiresAt }, person.nonce);
        const s = await openEventStream(
          `http://127.0.0.1:${port}/v1/inbox/stream`,
          { Authorization: `Bearer ${token}` },
          { agent },
        );
        if (s.status !== 200) throw new Error(`stream refused: ${s.status} ${s.body}`);
        await s.next((e) => e.event === "counts", 60_000);
        s.events.length = 0;
        streams.push(s);
      });
      await Promise.all(batch);
    }
    // Arrival times are taken by the stream reader as each event is parsed; this only collects them.
    const collect = setInterval(() => {
      for (const s of streams)
        for (const e of s.events.splice(0)) {
          if (e.event !== "item") continue;
          received++;
          const createdAt = Date.parse((JSON.parse(e.data) as { created_at: string }).created_at);
          latencies.push(performance.timeOrigin + e.at - createdAt);
        }
    }, 100);
    collect.unref();
    await sleep(5_000);
    const after = apiPids.map((pid) => usage(pid).rss);
    const memoryPerStream = after.reduce((sum, rss, i) => sum + (rss - before[i]!), 0) / STREAMS;
    console.log(
      `${apis} API process(es): ${STREAMS} streams open, ${fmt(memoryPerStream / 1024, 1)} KiB each`,
    );

    // Load.
    const pids = { apis: apiPids, relay: relay.child.pid! };
    const cpuBefore = { apis: pids.apis.map((pid) => usage(pid).cpu), relay: usage(pids.relay).cpu };
    const producer = startTs("producer", "bench/lib/inbox-producer.ts", [], {
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      PREFIX: prefix,
      RATE: String(RATE),
      SECONDS: String(SECONDS),
    });
    running.push(producer);
    let producerOut = "";
    producer.child.stdout!.on("data", (chunk) => (producerOut += chunk));
    let producerCpu = 0;
    const sampler = setInterval(() => {
      if (producer.child.exitCode === null) producerCpu = usage(producer.child.pid!).cpu;
    }, 200);
    const exit = await new Promise<number | null>((resolve) => producer.child.once("exit", resolve));
    clearInterval(sampler);
    if (exit !== 0) throw new Error(`producer failed: ${producer.stderr}`);
    const produced = JSON.parse(producerOut.trim().split("\n").at(-1)!) as {
      delivered: number;
      seconds: number;
    };
    const deadline = Date.now() + 15_000;
    while (received < produced.delivered && Date.now() < deadline) await sleep(100);
    await sleep(200);
    const cpuAfter = { apis: pids.apis.map((pid) => usage(pid).cpu), relay: usage(pids.relay).cpu };
    clearInterval(collect);
    const apiCpu = cpuAfter.apis.reduce((sum, cpu, i) => sum + cpu - cpuBefore.apis[i]!, 0);
    latencies.sort((a, b) => a - b);
    return {
      apis,
      streams: STREAMS,
      memoryPerStreamKiB: memoryPerStream / 1024,
      rateTarget: RATE,
      rateReached: produced.delivered / produced.seconds,
      items: produced.delivered,
      received,
      p50: quantile(latencies, 0.5),
      p95: quantile(latencies, 0.95),
      p99: quantile(latencies, 0.99),
      max: latencies.at(-1) ?? NaN,
      apiCpuMsPerItem: (apiCpu * 1000) / produced.delivered,
      relayCpuMsPerItem: ((cpuAfter.relay - cpuBefore.relay) * 1000) / produced.delivered,
      producerCpuMsPerItem: (producerCpu * 1000) / produced.delivered,
    };
  } finally {
    for (const s of streams) s.close();
    for (const r of running.reverse()) await stop(r);
    await db.end();
    await dropDatabase(databaseUrl).catch(() => undefined);
  }
}

async function main() {
  console.log(`open-files limit: ${openFilesLimit()} (needs ${FILES_NEEDED})`);
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const results: Result[] = [];
  for (const apis of SCENARIOS) {
    const result = await scenario(apis);
    console.log(JSON.stringify(result));
    results.push(result);
  }
  const rows = results.map(
    (r) =>
      `| ${r.apis} | ${fmt(r.streams)} | ${fmt(r.memoryPerStreamKiB, 1)} KiB | ${fmt(r.rateReached)} of ${fmt(r.rateTarget)}/s | ${fmt(r.received)} of ${fmt(r.items)} | ${fmt(r.p50)} / ${fmt(r.p95)} / ${fmt(r.p99)} / ${fmt(r.max)} ms | ${fmt(r.apiCpuMsPerItem, 2)} ms | ${fmt(r.relayCpuMsPerItem, 2)} ms | ${fmt(r.producerCpuMsPerItem, 2)} ms |`,
  );
  if (process.env.BENCH_WRITE === "0") return;
  writeSection(
    "inbox",
    `## Inbox streams

\`npm run bench:inbox\` (bench/inbox.ts): ${fmt(STREAMS)} idle streams, one per person, held by this
many API processes; then ${fmt(RATE)} new items per second for ${SECONDS} s, each to a random one of
those people, delivered by a producer process as the \`inbox\` provider does, fanned out by the
outbox relay of a separate worker process over Redis pub/sub. Latency: item \`created_at\` → its
\`item\` event at the client. CPU per item: user + system time of the process over the load phase.
Load average when run: ${load} on ${execFileSync("nproc", { encoding: "utf8" }).trim()} cores (the machine was shared).

| API processes | Streams | Memory per stream | Items/s reached | Received | p50 / p95 / p99 / max | API CPU per item | Relay CPU per item | Producer CPU per item |
|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}
`,
  );
}
