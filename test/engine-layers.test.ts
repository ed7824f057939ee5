import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

// The engine's layers (docs/architecture.md "Layers of the engine"): dependency-cruiser's rules in
// .dependency-cruiser.cjs are shown failing on an upward import and passing on a downward one,
// and the engine's folder-level import graph is shown to have no cycle.

const ROOT = path.resolve(__dirname, "..");
const DEPCRUISE = path.join(ROOT, "node_modules/.bin/depcruise");
const CONFIG = path.join(ROOT, ".dependency-cruiser.cjs");
const run = promisify(execFile);

jest.setTimeout(120_000);

interface Cruised {
  modules: { source: string; dependencies: { resolved: string }[] }[];
  summary: { violations: { rule: { name: string }; from: string; to: string }[] };
}

/** Cruises `files` (path → source) laid out in a scratch tree shaped like this repository. */
async function cruiseProbe(files: Record<string, string>): Promise<Cruised> {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-layers-"));
  try {
    writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: {} }));
    for (const [file, source] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), source);
    }
    const { stdout } = await run(DEPCRUISE, ["--config", CONFIG, "--output-type", "json", "packages"], {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    return JSON.parse(stdout) as Cruised;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const E = "packages/engine/src";
const useCase = `${E}/ingest/ingest-job.ts`;
const kernel = `${E}/shared/after-commit.ts`;
const block = `${E}/compose/compose-message.ts`;
const entry = `${E}/index.ts`;

it("fails an upward import inside the engine, each layer by its rule", async () => {
  const cruised = await cruiseProbe({
    [useCase]: 'import { entry } from "../index";\nexport const job = entry;\n',
    [kernel]: 'import { job } from "../ingest/ingest-job";\nexport const k = job;\n',
    [block]: 'import { job } from "../ingest/ingest-job";\nexport const c = job;\n',
    [entry]: "export const entry = 1;\n",
  });
  expect(
    cruised.summary.violations
      .map((v) => [v.rule.name, v.from, v.to])
      .sort((a, b) => a[0]!.localeCompare(b[0]!)),
  ).toEqual([
    ["engine-blocks-below-use-cases", block, useCase],
    ["engine-entry-is-the-door", useCase, entry],
    ["engine-kernel-is-the-floor", kernel, useCase],
  ]);
});

it("passes a downward import, and a test reaching up", async () => {
  const cruised = await cruiseProbe({
    [useCase]:
      'import { c } from "../compose/compose-message";\nimport { k } from "../shared/after-commit";\nexport const job = [c, k];\n',
    [block]: 'import { k } from "../shared/after-commit";\nexport const c = k;\n',
    [kernel]: "export const k = 1;\n",
    [`${E}/shared/__tests__/after-commit.test.ts`]:
      'import { job } from "../../ingest/ingest-job";\nexport const t = job;\n',
  });
  expect(cruised.summary.violations).toEqual([]);
});

it("keeps the engine's folder-level import graph free of cycles", async () => {
  const { stdout } = await run(DEPCRUISE, ["--config", CONFIG, "--output-type", "json", `${E}`], {
    cwd: ROOT,
    maxBuffer: 256 * 1024 * 1024,
  });
  const cruised = JSON.parse(stdout) as Cruised;
  const folderOf = (file: string): string | undefined => /^packages\/engine\/src\/([^/]+)\//.exec(file)?.[1];
  const edges = new Map<string, Set<string>>();
  const why = new Map<string, string>();
  for (const m of cruised.modules) {
    if (/\.test\.ts$|\/__tests__\//.test(m.source)) continue;
    const from = folderOf(m.source);
    if (!from) continue;
    for (const d of m.dependencies) {
      const to = folderOf(d.resolved);
      if (!to || to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
      why.set(`${from}->${to}`, `${m.source} imports ${d.resolved}`);
    }
  }
  expect(edges.size).toBeGreaterThan(20);
  expect(cyclesOf(edges).map((cycle) => cycle.map((edge) => why.get(edge)))).toEqual([]);
});

/** Each strongly connected set of folders (more than one), as the edges between its members. */
function cyclesOf(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const members: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      members.push(w);
    } while (w !== v);
    if (members.length > 1)
      found.push(
        members.flatMap((a) =>
          [...(edges.get(a) ?? [])].filter((b) => members.includes(b)).map((b) => `${a}->${b}`),
        ),
      );
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}
