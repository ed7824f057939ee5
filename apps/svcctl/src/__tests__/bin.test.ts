import { spawn } from "node:child_process";
import path from "node:path";
import { sha256Hex } from "@svc/core";
import { createTestDatabase, type TestDatabase } from "@svc/testkit";
import { EMPTY_CWD } from "./harness";

// The real entry point as a child process (TypeScript sources through ts-node, as `npm run svcctl`
// runs dist/main.js): exit codes reach the shell and the process ends on its own.

const MAIN = path.join(__dirname, "..", "main.ts");
const REGISTER = path.join(__dirname, "../../../../scripts/register-ts.cjs");
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("svcctl_bin");
});
afterAll(() => db.drop());

function runBin(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ["-r", REGISTER, MAIN, ...args], {
      cwd: EMPTY_CWD,
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("svcctl binary", () => {
  it("--help exits 0 and documents the exit codes; a missing argument exits 2", async () => {
    const [help, usage] = await Promise.all([runBin(["--help"]), runBin(["keys", "create", "-s", "admin"])]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: svcctl \[options\] \[command\]/);
    expect(help.stdout).toContain(
      "  5  service unavailable (Postgres, Redis or the API unreachable; retrying later may help)",
    );
    expect(usage).toEqual({ code: 2, stdout: "", stderr: "error: missing required argument 'name'\n" });
  }, 30_000);

  it("keys create prints a working key and exits 0; revoking an unknown id exits 4", async () => {
    const env = { DATABASE_URL: db.databaseUrl };
    const created = await runBin(["keys", "create", "bootstrap", "-s", "admin"], env);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^svc_[0-9A-Za-z]{43}\n$/);
    const row = await db.prisma.apiKey.findUnique({ where: { hash: sha256Hex(created.stdout.trim()) } });
    expect(row).toMatchObject({ name: "bootstrap", scopes: ["admin"] });
    expect(created.stderr).toContain(`created ${row!.id} 'bootstrap'`);

    expect(await runBin(["keys", "revoke", "key_missing"], env)).toEqual({
      code: 4,
      stdout: "",
      stderr: "error: no API key 'key_missing'\n",
    });
  }, 30_000);
});
