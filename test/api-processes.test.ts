import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createApiKey } from "@svc/engine";
import { createPrisma } from "@svc/store";
import { reserveTestDatabase, waitFor } from "@svc/testkit";

// `api.processes: 2`: the supervisor prepares once (one secret key file, migrations), forks two
// API processes on one port, replaces one that dies, and on SIGTERM to itself alone (as
// `docker stop` sends it) drains both and exits 0.

const ROOT = path.resolve(__dirname, "..");
// The processes under test create and migrate it; afterAll drops it.
const database = reserveTestDatabase("processes");
const { databaseUrl } = database;
const port = 20000 + Math.floor(Math.random() * 20000);
const cwd = mkdtempSync(path.join(tmpdir(), "svc-processes-"));
let supervisor: ChildProcess | undefined;
let output = "";

const childrenOf = (pid: number): number[] => {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((line) => Number(line.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there are none
  }
};
const ready = () =>
  waitFor(
    async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200 || null,
    { timeoutMs: 60_000, intervalMs: 250, what: "/readyz 200" },
  );

function startSupervisor(): ChildProcess {
  output = "";
  const child = spawn(
    process.execPath,
    ["-r", path.join(ROOT, "scripts/register-ts.cjs"), path.join(ROOT, "apps/api/src/main.ts")],
    {
      cwd,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: databaseUrl,
        REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
        PORT: String(port),
        SVC__API__PROCESSES: "2",
        SVC__REDIS__PREFIX: `svc-test-processes-${randomBytes(3).toString("hex")}`,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  return child;
}

afterAll(async () => {
  if (supervisor?.pid && supervisor.exitCode === null) {
    for (const pid of childrenOf(supervisor.pid)) process.kill(pid, "SIGKILL");
    supervisor.kill("SIGKILL");
  }
  await database.drop();
}, 60_000);

it("serves from two processes, replaces a dead one, and drains both on SIGTERM", async () => {
  supervisor = startSupervisor();
  const exited = new Promise<number | null>((resolve) => supervisor!.once("exit", (code) => resolve(code)));

  await ready();
  const first = await waitFor(
    async () => childrenOf(supervisor!.pid!).length === 2 && childrenOf(supervisor!.pid!),
    {
      timeoutMs: 60_000,
      what: "two API processes",
    },
  );
  const forked = Date.now();
  // Without SVC_SECRET_KEY the supervisor created the key file once; both processes use it.
  expect(existsSync(path.join(cwd, ".svc", "secret_key"))).toBe(true);
  expect(output.match(/created a secret key/g)).toHaveLength(1);
  expect((await fetch(`http://127.0.0.1:${port}/v1/agents`)).status).toBe(401);

  // A process that dies after its start window (10 s) is replaced.
  await sleep(Math.max(0, 11_000 - (Date.now() - forked)));
  process.kill(first[0]!, "SIGKILL");
  const second = await waitFor(
    async () => {
      const now = childrenOf(supervisor!.pid!);
      return now.length === 2 && !now.includes(first[0]!) && now;
    },
    { timeoutMs: 60_000, what: "a replacement process" },
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${output}`);
  });
  expect(second).toContain(first[1]);
  await ready();
  expect(output).toContain("an API process died; starting another");

  // SIGTERM to the supervisor alone: both processes drain their workers and exit, then it does.
  // Sent twice at once (as to a process and its group): still one graceful stop, not a forced one.
  supervisor.kill("SIGTERM");
  supervisor.kill("SIGTERM");
  const code = await Promise.race([exited, sleep(30_000).then(() => `still running after 30 s:\n${output}`)]);
  expect(code).toBe(0);
  expect(output.match(/"message":"workers stopped"/g)).toHaveLength(2);
  expect(childrenOf(supervisor.pid!)).toEqual([]);
}, 180_000);

it("a process that dies within 10 s of its start stops the supervisor with exit 1 instead of a restart loop", async () => {
  supervisor = startSupervisor();
  const exited = new Promise<number | null>((resolve) => supervisor!.once("exit", (code) => resolve(code)));
  const children = await waitFor(
    async () => childrenOf(supervisor!.pid!).length === 2 && childrenOf(supervisor!.pid!),
    { timeoutMs: 60_000, what: "two API processes" },
  );
  process.kill(children[0]!, "SIGKILL");
  const code = await Promise.race([exited, sleep(30_000).then(() => `still running after 30 s:\n${output}`)]);
  expect(code).toBe(1);
  expect(output).toContain("an API process died right after starting; stopping");
  expect(output).not.toContain("starting another");
  expect(childrenOf(supervisor.pid!)).toEqual([]);
}, 120_000);

it("a scrape of /metrics from either process reports the requests both answered", async () => {
  supervisor = startSupervisor();
  const exited = new Promise<number | null>((resolve) => supervisor!.once("exit", (code) => resolve(code)));
  await ready();
  await waitFor(async () => childrenOf(supervisor!.pid!).length === 2, {
    timeoutMs: 60_000,
    what: "two API processes",
  });
  const prisma = createPrisma({ databaseUrl, poolMax: 1 });
  const { key } = await createApiKey(
    { prisma, now: () => new Date() },
    { name: "scraper", scopes: ["admin"] },
  );
  await prisma.$disconnect();
  const headers = { authorization: `Bearer ${key}` };

  // Round robin over the two processes: each answers about half of these.
  for (let i = 0; i < 10; i++)
    expect((await fetch(`http://127.0.0.1:${port}/v1/agents`, { headers })).status).toBe(200);
  for (let scrape = 0; scrape < 2; scrape++) {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { headers });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^svc_http_requests_total\{method="GET",route="\/v1\/agents",status="200"\} 10$/m);
    // Queue sizes come once, from the process that answered (never summed over processes).
    expect(text.match(/^svc_queue_jobs\{queue="delivery",state="waiting"\} \d+$/gm)).toHaveLength(1);
    expect(text.match(/^# TYPE svc_queue_jobs gauge$/gm)).toHaveLength(1);
  }

  supervisor.kill("SIGTERM");
  expect(await Promise.race([exited, sleep(30_000).then(() => `still running:\n${output}`)])).toBe(0);
}, 120_000);
