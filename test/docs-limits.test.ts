import { readFileSync } from "node:fs";
import path from "node:path";
import { parseConfig } from "@svc/config";
import { QUEUE_NAMES } from "@svc/core";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../packages/engine/src/shared/paging";

// docs/api.md "Limits and defaults" against the code: every default the table states is read from
// the configuration schema's defaults (parseConfig of an empty file) or the constant that sets it,
// so changing one without the other fails here.

const table = (() => {
  const doc = readFileSync(path.resolve(__dirname, "../docs/api.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Limits and defaults"), doc.indexOf("## Versioning"));
  const rows = new Map<string, { value: string; changeWith: string }>();
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length < 5 || cells[1] === "What" || cells[1]!.startsWith("---")) continue;
    rows.set(cells[1]!, { value: cells[2]!, changeWith: cells[3]! });
  }
  return rows;
})();

/** The row whose "What" cell starts with `what`. */
function row(what: string): { value: string; changeWith: string } {
  const found = [...table].find(([key]) => key.startsWith(what));
  if (!found) throw new Error(`docs/api.md has no limits row starting "${what}"`);
  return found[1];
}

const n = (value: number) => value.toLocaleString("en-US");
const defaults = parseConfig({}, {});

it("reads the table", () => {
  expect(table.size).toBeGreaterThan(30);
});

it.each([
  ["Page size", () => `default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}`, ""],
  ["Request body", () => `${n(defaults.api.max_body_bytes)} bytes`, "`api.max_body_bytes`"],
  [
    "Request body of broadcast",
    () => `${n(defaults.api.max_broadcast_body_bytes)} bytes`,
    "`api.max_broadcast_body_bytes`",
  ],
  [
    "Rate limit per API key",
    () =>
      `${n(defaults.api.rate_limit.per_second)} requests/s sustained, bursts of ${n(defaults.api.rate_limit.burst)}`,
    "`api.rate_limit.per_second`",
  ],
  [
    "Items waiting for approval per agent",
    () => `${defaults.approvals.max_pending_per_agent};`,
    "`approvals.max_pending_per_agent`",
  ],
  [
    "Default quiet hours",
    () => `${defaults.policy.quiet_hours.start}–${defaults.policy.quiet_hours.end}`,
    "`policy.quiet_hours`",
  ],
  [
    "Zone when a person has none",
    () => `\`${defaults.policy.default_timezone}\``,
    "`policy.default_timezone`",
  ],
  [
    "Retryable failures a delivery run tolerates",
    () => `the ${defaults.worker.max_attempts}th gives up`,
    "`worker.max_attempts`",
  ],
  [
    "Longest a run may retry",
    () => `${n(defaults.worker.max_defer_seconds)} s`,
    "`worker.max_defer_seconds`",
  ],
  ["Delivery lease", () => `${defaults.worker.lease_seconds} s`, "`worker.lease_seconds`"],
  ["Event processing attempts", () => `${defaults.worker.max_attempts}, backoff`, "`worker.max_attempts`"],
  [
    "Events re-enqueued when still `pending`",
    () => `after 2 × \`worker.sweep_seconds\` (${2 * defaults.worker.sweep_seconds} s by default)`,
    "`worker.sweep_seconds`",
  ],
] as [string, () => string, string][])("%s: the value the code sets", (what, expected, key) => {
  const { value, changeWith } = row(what);
  expect(value).toContain(expected());
  expect(changeWith).toContain(key);
});

it("jobs run at once per process: every queue with its default concurrency", () => {
  const { value, changeWith } = row("Jobs run at once per process");
  expect(changeWith).toBe("`worker.concurrency.<queue>`");
  const stated = Object.fromEntries(
    value.split(", ").map((pair) => {
      const [queue, count] = pair.split(" ");
      return [queue!, Number(count)];
    }),
  );
  expect(Object.keys(stated).sort()).toEqual([...QUEUE_NAMES].sort());
  expect(stated).toEqual(defaults.worker.concurrency);
});
