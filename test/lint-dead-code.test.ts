import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";

// `npm run lint` fails on a dead export (knip, `npm run lint:dead`; knip.jsonc, docs/decisions.md
// "Tooling"). The real knip binary runs on a workspace-like probe in a temporary folder: a root with
// npm workspaces, one package whose entry uses one of the two exports of a second module. Knip
// fails naming the other one, and passes once it is used.

const ROOT = path.resolve(__dirname, "..");
const KNIP = path.join(ROOT, "node_modules", ".bin", "knip");

let probe: string;

function write(file: string, text: string): void {
  mkdirSync(path.dirname(path.join(probe, file)), { recursive: true });
  writeFileSync(path.join(probe, file), text);
}

function knip(): { status: number | null; output: string } {
  const run = spawnSync(KNIP, ["--no-progress", "--no-config-hints"], {
    cwd: probe,
    encoding: "utf8",
    env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
    timeout: 30_000,
  });
  if (run.error) throw run.error;
  return { status: run.status, output: run.stdout + run.stderr };
}

beforeAll(() => {
  probe = mkdtempSync(path.join(os.tmpdir(), "svc-knip-probe-"));
  write(
    "package.json",
    JSON.stringify({ name: "probe", private: true, workspaces: ["packages/*"] }, null, 2),
  );
  write("knip.json", JSON.stringify({ workspaces: { "packages/*": { entry: ["src/main.ts"] } } }));
  write(
    "packages/app/package.json",
    JSON.stringify({ name: "@probe/app", version: "0.0.0", private: true }, null, 2),
  );
  write(
    "packages/app/tsconfig.json",
    JSON.stringify({ compilerOptions: { strict: true, module: "commonjs", target: "es2022" } }),
  );
  write(
    "packages/app/src/format.ts",
    "export const greet = (name: string) => `hello ${name}`;\n" +
      "export const shout = (name: string) => `HELLO ${name.toUpperCase()}`;\n",
  );
  write("packages/app/src/main.ts", 'import { greet } from "./format";\nconsole.log(greet("probe"));\n');
});

afterAll(() => {
  if (probe) rmSync(probe, { recursive: true, force: true });
});

it("fails on an export nothing imports, naming it", () => {
  const { status, output } = knip();
  expect(status).not.toBe(0);
  expect(output).toMatch(/Unused exports \(1\)/);
  expect(output).toMatch(/shout\s+packages\/app\/src\/format\.ts/);
  expect(output).not.toMatch(/\bgreet\b/);
}, 30_000);

it("passes once the export is used", () => {
  write(
    "packages/app/src/main.ts",
    'import { greet, shout } from "./format";\nconsole.log(greet("probe"), shout("probe"));\n',
  );
  const { status, output } = knip();
  expect(output.trim()).toBe("");
  expect(status).toBe(0);
}, 30_000);

it("is part of npm run lint", () => {
  const { scripts } = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  expect(scripts["lint:dead"]).toBe("knip");
  expect(scripts.lint).toMatch(/&& npm run -s lint:dead$/);
});
