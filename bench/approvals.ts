/**
 * Approve → `sent` beside direct send → `sent`, in one session (docs/benchmarks.md "Approvals").
 * Run: `npm run build && npm run bench:approvals`.
 *
 * - One svc process (`npm start`'s shape: API with embedded workers, console channel to /dev/null).
 * - Direct: BENCH_MESSAGES direct sends by a backend key from BENCH_CLIENTS concurrent clients; the
 *   latency of each is from just before its request to its `sent_at`.
 * - Approvals: as many messages held for approval (an agent with `approval: true`), then approved by
 *   BENCH_CLIENTS concurrent clients; the latency of each is from just before its approve request to
 *   its `sent_at`. Target: approve p99 ≤ 1.5 × direct p99.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Pool } from "pg";
import { createApiKey } from "@svc/engine";
import { createPrisma, dropDatabase, withDatabaseName } from "@svc/store";
import { startAcceptApi, stop } from "./lib/processes";
import { fmt, writeSection } from "./lib/results";

const N = Number(process.env.BENCH_MESSAGES ?? 1000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SERVER = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const PORT = 18131;
const BASE = `http://127.0.0.1:${PORT}`;

type Json = Record<string, unknown>;

async function call(
  key: string,
  method: string,
  path: string,
  body?: Json,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

/** Runs `work(i)` for i in [0, n) with `clients` in flight at once. */
async function pool<T>(n: number, clients: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < n) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function latencies(db: Pool, started: Map<string, number>): Promise<number[]> {
  const ids = [...started.keys()];
  for (;;) {
    const { rows } = await db.query<{ id: string; sent_at: Date | null; status: string }>(
      "SELECT id, sent_at, status FROM messages WHERE id = ANY($1)",
      [ids],
    );
    const stuck = rows.filter((r) => r.sent_at === null && ["queued", "sending"].includes(r.status));
    if (stuck.length === 0) {
      const bad = rows.filter((r) => r.sent_at === null);
      if (bad.length > 0) throw new Error(`${bad.length} messages ended ${bad[0]!.status}, not sent`);
      return rows.map((r) => r.sent_at!.getTime() - started.get(r.id)!).sort((a, b) => a - b);
    }
    await sleep(100);
  }
}

async function main() {
  const tag = randomBytes(3).toString("hex");
  const databaseUrl = withDatabaseName(SERVER, `svc_bench_approvals_${tag}`);
  const api = await startAcceptApi({
    databaseUrl,
    redisUrl: REDIS_URL,
    port: PORT,
    prefix: `svc-bench-approvals-${tag}`,
    env: {
      SVC__WORKER__EMBEDDED: "true",
      SVC__APPROVALS__MAX_PENDING_PER_AGENT: String(N * ROUNDS + 10),
    },
  });
  const prisma = createPrisma({ databaseUrl });
  const now = () => new Date();
  const admin = (await createApiKey({ prisma, now }, { name: "bench admin", scopes: ["admin"] })).key;
  const db = new Pool({ connectionString: databaseUrl, max: 2 });
  try {
    await call(admin, "PUT", "/v1/templates/bench", {
      locales: { en: { title: "Hi", body: "Update {{ data.n }}" } },
    });
    await call(admin, "PUT", "/v1/agents/bench-bot", {
      name: "Bench bot",
      categories: ["transactional"],
      approval: true,
      frequency_caps: [{ period: "P1D", limit: 1000 }],
    });
    const agentKey = (
      await createApiKey(
        { prisma, now },
        { name: "bench agent", scopes: ["messages:write"], agent: "bench-bot" },
      )
    ).key;
    const backendKey = (
      await createApiKey({ prisma, now }, { name: "bench backend", scopes: ["messages:write"] })
    ).key;
    await pool(N, CLIENTS, (i) =>
      call(admin, "PUT", `/v1/recipients/person-${i}`, {
        addresses: [{ channel: "console", value: `p${i}@example.com` }],
      }),
    );
    const send = (key: string, i: number, round: number) =>
      call(key, "POST", "/v1/messages", {
        recipient: `person-${i}`,
        template: "bench",
        category: "transactional",
        channels: ["console"],
        data: { n: i },
        idempotency_key: `${key.slice(4, 12)}-${round}-${i}`,
      });

    const runs: { direct: number[]; approve: number[] }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Direct sends.
      const direct = new Map<string, number>();
      await pool(N, CLIENTS, async (i) => {
        const t = Date.now();
        const res = await send(backendKey, i, round);
        if (res.status !== 202)
          throw new Error(`direct send answered ${res.status}: ${JSON.stringify(res.body)}`);
        direct.set(res.body.id as string, t);
      });
      const directLatency = await latencies(db, direct);

      // Held, then approved.
      const held = await pool(N, CLIENTS, async (i) => {
        const res = await send(agentKey, i, round);
        if (res.body.status !== "pending_approval") throw new Error(`not held: ${JSON.stringify(res.body)}`);
        return res.body.id as string;
      });
      const approved = new Map<string, number>();
      await pool(N, CLIENTS, async (i) => {
        const t = Date.now();
        const res = await call(admin, "POST", `/v1/messages/${held[i]}/approve`);
        if (res.status !== 200)
          throw new Error(`approve answered ${res.status}: ${JSON.stringify(res.body)}`);
        approved.set(held[i]!, t);
      });
      const approveLatency = await latencies(db, approved);
      runs.push({ direct: directLatency, approve: approveLatency });
      console.log(
        `round ${round + 1}: direct p50 ${quantile(directLatency, 0.5)} ms p99 ${quantile(directLatency, 0.99)} ms; ` +
          `approve p50 ${quantile(approveLatency, 0.5)} ms p99 ${quantile(approveLatency, 0.99)} ms`,
      );
    }
    const all = (pick: (r: (typeof runs)[number]) => number[]) => runs.flatMap(pick).sort((a, b) => a - b);
    const direct = all((r) => r.direct);
    const approve = all((r) => r.approve);
    const lines = [
      `messages per round: ${N}, clients: ${CLIENTS}, rounds: ${ROUNDS}`,
      `direct send → sent: p50 ${fmt(quantile(direct, 0.5))} ms, p99 ${fmt(quantile(direct, 0.99))} ms`,
      `approve → sent:     p50 ${fmt(quantile(approve, 0.5))} ms, p99 ${fmt(quantile(approve, 0.99))} ms`,
      `p99 ratio approve/direct: ${(quantile(approve, 0.99) / quantile(direct, 0.99)).toFixed(2)} (target ≤ 1.5)`,
    ];
    for (const line of lines) console.log(line);
    writeSection("approvals", lines.map((line) => `- ${line}`).join("\n"));
  } finally {
    await db.end();
    await prisma.$disconnect();
    await stop(api);
    await dropDatabase(databaseUrl);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
