import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { RENDER_TIME_LIMIT_MS, templateLanguageNames } from "@svc/jinja";

// The hostile-input corpus (docs/operations.md "Hostile input"): every filter, test and str method
// of the template language over adversarial inputs of about 1 MB each, with default arguments and
// with the ones that make it work hardest. Each render either finishes or fails with a clean error,
// and none runs past the time limit by more than a slice: every filter is linear or bounded and
// looks at the clock as it goes. The renders run in a process of their own
// (run-template-corpus.ts), and CPU time is asserted, not wall time, so neither this runner's heap
// nor a loaded machine can fail it; wall times go to the report. That process collects garbage on
// its main thread (--single-threaded-gc): the process's CPU time counts every thread, and V8's
// parallel collector threads once added 280 ms to a 500 ms render on a loaded CI machine.
//
//   npx jest test/hostile/template-corpus.test.ts                          # sampled, 736 renders
//   CORPUS=full npx jest test/hostile/template-corpus.test.ts              # all 6,882
//   CORPUS_REPORT=test-output/corpus.json npx jest test/hostile/template-corpus.test.ts   # per-case times

const ROOT = path.resolve(__dirname, "../..");
/** CPU a render may use beyond the limit: the time between two looks at the clock, and GC. */
const SLACK_MS = 250;
const full = process.env.CORPUS === "full";

interface Measured {
  name: string;
  source: string;
  wallMs: number;
  cpuMs: number;
  outcome: string;
}

jest.setTimeout(full ? 3_600_000 : 600_000);

async function measure(only?: string[]): Promise<Measured[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      "--single-threaded-gc",
      "-r",
      path.join(ROOT, "scripts/register-ts.cjs"),
      path.join(__dirname, "run-template-corpus.ts"),
      ...(full ? ["--full"] : []),
      ...(only ? ["--only", JSON.stringify(only)] : []),
    ],
    { cwd: ROOT, maxBuffer: 256 * 1024 * 1024, env: { PATH: process.env.PATH } },
  );
  return JSON.parse(stdout) as Measured[];
}

it(`renders the corpus within the ${RENDER_TIME_LIMIT_MS} ms limit`, async () => {
  const measured = await measure();

  // Every filter, test and str method the language has is in the corpus.
  const names = templateLanguageNames();
  for (const filter of names.filters)
    expect(measured.some((m) => m.source.includes(`| ${filter}`))).toBe(true);
  for (const test of names.tests) expect(measured.some((m) => m.name.startsWith(`test ${test} `))).toBe(true);
  for (const method of names.strMethods)
    expect(measured.some((m) => m.source.includes(`.${method}(`))).toBe(true);
  writeReport(measured);

  // A case over the limit is measured once more in a fresh process, and fails only if it is over
  // again: a filter that never looks at the clock is over every time, a collection that happened
  // to land in one render's slice is not.
  const overOnce = measured.filter((m) => m.cpuMs > RENDER_TIME_LIMIT_MS + SLACK_MS);
  const again = overOnce.length > 0 ? await measure(overOnce.map((m) => m.name)) : [];
  expect(again.map((m) => m.name).sort()).toEqual(overOnce.map((m) => m.name).sort());
  const over = again.filter((m) => m.cpuMs > RENDER_TIME_LIMIT_MS + SLACK_MS);
  expect(over.map((m) => `${m.name}: ${m.cpuMs.toFixed(0)} ms CPU (${m.outcome})`)).toEqual([]);
  // A failure is one of the language's own errors, never the runtime's (a stack overflow, a
  // string too long for V8): those would mean a path that no limit covers.
  const runtimeErrors = measured.filter((m) =>
    /Maximum call stack|Invalid string length|Invalid array length|out of memory/i.test(m.outcome),
  );
  expect(runtimeErrors.map((m) => `${m.name}: ${m.outcome}`)).toEqual([]);
});

function writeReport(measured: Measured[]): void {
  const slowest = [...measured].sort((a, b) => b.wallMs - a.wallMs).slice(0, 10);
  const summary = {
    cases: measured.length,
    stopped_by_a_limit: measured.filter((m) => m.outcome.startsWith("render limit exceeded")).length,
    max_wall_ms: Math.round(slowest[0]?.wallMs ?? 0),
    max_cpu_ms: Math.round(Math.max(...measured.map((m) => m.cpuMs))),
    over_100_ms_wall: measured.filter((m) => m.wallMs > 100).length,
    slowest: slowest.map((m) => ({
      name: m.name,
      wall_ms: Math.round(m.wallMs),
      cpu_ms: Math.round(m.cpuMs),
      outcome: m.outcome,
    })),
  };
  console.log(`hostile corpus: ${JSON.stringify(summary, null, 2)}`);
  const file = process.env.CORPUS_REPORT;
  if (file) {
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    writeFileSync(path.resolve(file), JSON.stringify({ summary, cases: measured }, null, 2));
  }
}
