/**
 * Profiles the API child under the accept-path load: starts apps/api/dist/main.js with
 * `--cpu-prof`, drives `POST /v1/events` with wrk (32 connections), stops it and prints the top
 * functions by self time, grouped also by package. Run: `npm run build && npx ts-node
 * --transpile-only bench/profile-accept.ts` (PROFILE_SECONDS, default 10). PROFILE_CPU=0 runs the
 * child without the profiler (the profiler itself costs CPU per request) and PROFILE_ROUNDS (default
 * 1) repeats the load, printing each round and the median µs CPU per request. PROFILE_INTERVAL_US
 * (default 1000) samples more often, e.g. 100 to see how long the event loop's idle stretches are;
 * PROFILE_CONNECTIONS (default 32) changes wrk's connections.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { dropDatabase, withDatabaseName } from "@svc/store";
import { eventPostScript } from "./lib/event-posts";
import { cpuSecondsOf, startAcceptApi, stop } from "./lib/processes";
import { summarizeProfile } from "./lib/cpu-profile";
import { fmt } from "./lib/results";
import { median, wrk } from "./lib/wrk";

const SECONDS = Number(process.env.PROFILE_SECONDS ?? 10);
const ROUNDS = Number(process.env.PROFILE_ROUNDS ?? 1);
const PROFILING = process.env.PROFILE_CPU !== "0";
const SERVER = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

async function main() {
  const tag = randomBytes(3).toString("hex");
  const db = withDatabaseName(SERVER, `svc_bench_profile_${tag}`);
  const dir = mkdtempSync(path.join(tmpdir(), "svc-profile-"));
  const port = 18113;
  // The profile's last PROFILE_SECONDS are summarised (stopping takes well under a second).
  const svc = await startAcceptApi({
    databaseUrl: db,
    redisUrl: REDIS_URL,
    port,
    prefix: `svc-profile-${tag}`,
    env: { SVC__LOG__LEVEL: process.env.PROFILE_LOG_LEVEL ?? "warn" },
    nodeArgs: PROFILING
      ? [
          "--cpu-prof",
          `--cpu-prof-dir=${dir}`,
          `--cpu-prof-interval=${process.env.PROFILE_INTERVAL_US ?? 1000}`,
        ]
      : [],
  });
  const script = await eventPostScript(db, "profile");
  try {
    await wrk({ url: `http://127.0.0.1:${port}/v1/events`, script, connections: 32, seconds: 2 }); // warm-up
    const cpuPerRequest: number[] = [];
    const rates: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const cpuBefore = cpuSecondsOf(svc.pid!);
      const r = await wrk({
        url: `http://127.0.0.1:${port}/v1/events`,
        script,
        connections: Number(process.env.PROFILE_CONNECTIONS ?? 32),
        seconds: SECONDS,
      });
      const cpuUs = ((cpuSecondsOf(svc.pid!) - cpuBefore) * 1e6) / (r.requestsPerSecond * SECONDS);
      cpuPerRequest.push(cpuUs);
      rates.push(r.requestsPerSecond);
      // CPU per request is steadier than requests/s on a shared box.
      console.log(
        `${fmt(r.requestsPerSecond)} req/s, p99 ${fmt(r.latencyP99Ms, 1)} ms, non-2xx ${r.non2xx}, ${fmt(cpuUs)} µs CPU per request`,
      );
    }
    if (ROUNDS > 1) {
      console.log(`median: ${fmt(median(rates))} req/s, ${fmt(median(cpuPerRequest))} µs CPU per request`);
    }
  } finally {
    await stop(svc);
    await dropDatabase(db);
  }
  if (!PROFILING) return;
  const file = readdirSync(dir).find((name) => name.endsWith(".cpuprofile"));
  if (!file) throw new Error(`no .cpuprofile written in ${dir}`);
  console.log(`profile: ${path.join(dir, file)}\n`);
  console.log(summarizeProfile(path.join(dir, file), Number(process.env.PROFILE_TOP ?? 40), SECONDS));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
