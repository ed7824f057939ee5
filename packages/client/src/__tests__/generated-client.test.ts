import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// The committed client must be what the OpenAPI document gives today: the generator of
// `npm run client:generate` runs with --check, regenerates every file in memory and compares it
// with the committed one. (A child process: openapi-typescript loads ES modules jest cannot.)

const ROOT = path.resolve(__dirname, "../../../..");
const GENERATOR = path.join(ROOT, "scripts", "generate-client.cjs");

function check(...args: string[]) {
  const run = spawnSync(process.execPath, [GENERATOR, "--check", ...args], { cwd: ROOT, encoding: "utf8" });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

it("the committed client matches the OpenAPI document (else run `npm run client:generate`)", () => {
  expect(check()).toEqual({ code: 0, stdout: "client up to date\n", stderr: "" });
}, 30_000);

it("a changed document is caught: both generated files are stale, nothing is written", () => {
  // The committed snapshot is today's document (the test above): change one field of it.
  const doc = JSON.parse(
    fs.readFileSync(path.join(ROOT, "packages/client/src/generated/openapi.json"), "utf8"),
  );
  doc.components.schemas.Message.properties.colour = { type: "string" };
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-client-")), "openapi.json");
  fs.writeFileSync(file, JSON.stringify(doc));
  const before = fs.readFileSync(path.join(ROOT, "packages/client/src/generated/openapi.ts"), "utf8");

  expect(check("--document", file)).toEqual({
    code: 1,
    stdout: "",
    stderr:
      "stale: packages/client/src/generated/openapi.ts, packages/client/src/generated/openapi.json; run 'npm run client:generate'\n",
  });
  expect(fs.readFileSync(path.join(ROOT, "packages/client/src/generated/openapi.ts"), "utf8")).toBe(before);
}, 30_000);
