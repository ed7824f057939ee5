/**
 * CPU per direct send by phase (docs/benchmarks.md "Direct sends: where the API's CPU goes"):
 * reads the API's CPU profile from a bench:drain run of the direct shape and attributes every
 * sample to the innermost frame a phase below recognises, then divides by the sends.
 *
 *   BENCH_API_ARGS="--cpu-prof --cpu-prof-dir=/tmp/api-prof" BENCH_PHASES=shapes BENCH_ONLY=svc \
 *     BENCH_ROUNDS=1 BENCH_SHAPES=stored,direct npm run bench:drain
 *   npm run bench:direct-phases -- /tmp/api-prof/*.cpuprofile 6000
 *
 * The second argument is the sends the API served while profiled: with BENCH_ROUNDS=1 and the
 * default BENCH_SHAPE_REPEATS=2, one unmeasured pass and two measured ones of
 * BENCH_SHAPE_MESSAGES (2,000) each. The profile covers the process's start too (loading and
 * compiling the sources): that row is printed but left out of the total per send. The first
 * pass runs cold (JIT), so the per-send figures are a little above a warm process's.
 */
import { profilePhases, type PhaseRule } from "./lib/cpu-profile";
import { fmt } from "./lib/results";

// Libraries doing I/O own everything under them (a socket write under pg is the database client's);
// otherwise the innermost recognised frame decides (JSON.stringify called by the route is the
// route's, and a route is not its middleware's though middleware calls it).
const START_UP = "start-up (loading and compiling modules)";
const RULES: PhaseRule[] = [
  {
    phase: START_UP,
    owns: true,
    url: /^node:internal\/(modules|main)\/|scripts\/register-ts|node_modules\/(@swc|pirates|source-map-support)\//,
  },
  {
    phase: "request validation (OpenAPI)",
    url: /express-openapi-validator|\/ajv|openapi-validation|validate-each|request-formats/,
  },
  { phase: "auth and rate limit", url: /apps\/api\/src\/auth\/|rate-limit|api-key/ },
  {
    phase: "logging",
    owns: true,
    url: /node_modules\/(winston|logform|triple-beam|@colors)|packages\/log\//,
  },
  {
    phase: "database client (Prisma, pg)",
    owns: true,
    url: /node_modules\/(@prisma|prisma|pg|pg-protocol|pg-pool|pg-types|postgres-[a-z-]+)\/|packages\/store\//,
  },
  {
    phase: "enqueue (BullMQ, ioredis)",
    owns: true,
    url: /node_modules\/(bullmq|ioredis|msgpackr|cluster-key-slot|redis-errors|denque)\/|packages\/queue\//,
  },
  {
    phase: "render (templates)",
    owns: true,
    url: /packages\/jinja\/|nunjucks|core\/src\/render\/|engine\/src\/rendering\//,
  },
  { phase: "policy decision (core)", url: /packages\/core\/src\// },
  { phase: "composition (engine compose)", url: /engine\/src\/compose\// },
  {
    phase: "direct send use case (batching, idempotency, references)",
    url: /engine\/src\/(messages|shared|outbox)\//,
  },
  { phase: "route and response", url: /apps\/api\/src\/(routes|http|openapi)\// },
  {
    phase: "HTTP framework (Express and friends)",
    url: /node_modules\/(express|router|body-parser|raw-body|on-finished|finalhandler|send|qs|type-is|content-type|iconv-lite|depd|debug|accepts|negotiator|statuses|http-errors|cookie|etag|fresh|parseurl|vary|proxy-addr|ipaddr\.js)\//,
  },
  {
    phase: "Node HTTP server and sockets",
    url: /^node:(_http_|http|net|internal\/(http|net|stream_base_commons|streams\/|js_stream_socket))/,
  },
  { phase: "Node (timers, events, promises, other)", url: /^node:/ },
];

function main(): void {
  const [file, sendsText] = process.argv.slice(2);
  const sends = Number(sendsText);
  if (!file || !Number.isFinite(sends) || sends <= 0)
    throw new Error("usage: direct-phases <api .cpuprofile> <sends served while profiled>");
  const { byPhase, unmatched, totalUs } = profilePhases(file, RULES);
  const startUp = byPhase.get(START_UP) ?? 0;
  byPhase.delete(START_UP);
  const servingUs = totalUs - startUp;
  const rows = [...byPhase].sort((a, b) => b[1] - a[1]);
  console.log(`${START_UP}: ${fmt(startUp / 1000)} ms, left out below\n`);
  console.log(`| Phase | Share | CPU per send |\n|---|---|---|`);
  for (const [phase, us] of rows) {
    const name =
      phase === "other"
        ? "start-up and other"
        : phase === "(gc)"
          ? "garbage collection"
          : phase === "(program)"
            ? "V8 (compile, runtime)"
            : phase;
    console.log(`| ${name} | ${fmt((100 * us) / servingUs, 1)} % | ${fmt(us / 1000 / sends, 3)} ms |`);
  }
  console.log(`| **total** | 100 % | **${fmt(servingUs / 1000 / sends, 3)} ms** |`);
  const rest = [...unmatched].sort((a, b) => b[1] - a[1]).slice(0, 8);
  if (rest.length > 0)
    console.log(
      `\nunattributed, by package: ${rest.map(([pkg, us]) => `${pkg} ${fmt((100 * us) / totalUs, 1)} %`).join(", ")}`,
    );
}

main();
