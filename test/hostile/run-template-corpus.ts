// Renders the hostile template corpus in a process of its own and prints one JSON line with each
// render's wall and CPU time (test/hostile/template-corpus.test.ts runs it). A fresh process: the
// CPU a render costs is not mixed with the collection of a test runner's large heap.
import { renderSource, templateLanguageNames } from "@svc/jinja";
import { templateCorpus } from "@svc/testkit";

const full = process.argv.includes("--full");
// `--only <json array of case names>`: measure again just those (the test's second look).
const onlyAt = process.argv.indexOf("--only");
const only = onlyAt >= 0 ? new Set(JSON.parse(process.argv[onlyAt + 1] ?? "[]") as string[]) : undefined;
const cases = templateCorpus(templateLanguageNames(), { full }).filter((c) => !only || only.has(c.name));
const measured = cases.map((c) => {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = renderSource(c.source, { data: c.data });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const outcome = result.ok ? `ok, ${result.text.length} characters` : result.error.message;
  return { name: c.name, source: c.source, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, outcome };
});
process.stdout.write(`${JSON.stringify(measured)}\n`);
