/**
 * Fault runs at scale: `npm run bench:faults`. Each fault of test/faults (the same harness,
 * bench/lib/faults) with BENCH_EVENTS events (default 5,000) posted through the API to a webhook
 * sink, the fault injected once a third arrived. Runs at svc's default lease and sweep period
 * unless BENCH_LEASE_SECONDS / BENCH_SWEEP_SECONDS say otherwise; BENCH_FAULTS picks faults
 * (comma-separated). Prints per fault: accepted, sent, lost, duplicates (and sends in flight at
 * the fault), repeats the fault does not explain, sends whose run had lost its claim, 5xx answers,
 * seconds from the last fault until everything was final.
 */
import { loadavg } from "node:os";
import { FAULTS, runFaultScenario, type FaultName, type FaultRunResult } from "./lib/faults/scenario";
import { writeSection } from "./lib/results";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const SETTINGS = {
  lease_seconds: Number(process.env.BENCH_LEASE_SECONDS ?? 30),
  sweep_seconds: Number(process.env.BENCH_SWEEP_SECONDS ?? 10),
  lock_ms: Number(process.env.BENCH_LOCK_MS ?? 30_000),
};
const chosen = (process.env.BENCH_FAULTS?.split(",").map((f) => f.trim()) ?? [...FAULTS]) as FaultName[];

async function main(): Promise<void> {
  const unknown = chosen.filter((f) => !(FAULTS as readonly string[]).includes(f));
  if (unknown.length > 0)
    throw new Error(`unknown fault ${unknown.join(", ")} (known: ${FAULTS.join(", ")})`);
  const results: FaultRunResult[] = [];
  for (const fault of chosen) {
    const result = await runFaultScenario({
      fault,
      events: EVENTS,
      settings: SETTINGS,
      finalWithinMs: 180_000,
      log: (line) => console.error(line),
    });
    console.error(JSON.stringify(result));
    results.push(result);
  }
  const rows = results.map(
    (r) =>
      `| ${r.fault} | ${r.accepted} | ${r.sent} | ${r.lost} | ${r.duplicates} (${r.inFlightAtFault} in flight) | ${r.repeatsUnexplained}${r.repeatsAfterTimeout ? ` (${r.repeatsAfterTimeout} after a timeout)` : ""} | ${r.sendsAfterLostLease} | ${r.fiveXx} | ${r.secondsToFinal === null ? "not within 180 s" : r.secondsToFinal.toFixed(1)} |`,
  );
  const table = [
    `${EVENTS} events per fault; lease ${SETTINGS.lease_seconds} s, sweeps every ${SETTINGS.sweep_seconds} s; load average ${loadavg()[0]!.toFixed(1)} at the end.`,
    "",
    "| fault | accepted | sent | lost | duplicates | unexplained repeats | sends after a lost lease | 5xx | s to all final after the last fault |",
    "|---|---|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
  console.log(table);
  if (process.env.BENCH_WRITE === "1")
    writeSection("faults", `## Fault runs (\`npm run bench:faults\`)\n\n${table}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
