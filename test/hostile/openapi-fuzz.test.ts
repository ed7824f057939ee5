import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, fetch } from "undici";
import { loadOpenApiDocument } from "../../apps/api/src/openapi/load-openapi";
import { createApiKey } from "@svc/engine";
import { createTestDatabase, testRedisPrefix, waitFor, type TestDatabase } from "@svc/testkit";
import { operationsOf, requestsFor, type Doc, type FuzzRequest } from "./openapi-fuzz";

// The fuzz suite (docs/operations.md "Hostile input"): for every operation of the OpenAPI
// document, requests drawn with fast-check from its own schemas, valid first, then mutated (wrong
// types, huge and deeply nested values, odd Unicode, missing and extra fields, odd path and query
// values), sent to the whole service started as `npm start` starts it (API and embedded workers,
// from source). Asserted: never a 500 (nor any 5xx), every 4xx a problem+json, the service
// healthy afterwards, and not one error line in its log. Operations added to the document are
// fuzzed without touching this file. Bounded in time: the request counts per operation follow
// from FUZZ_BUDGET_MS (default 90 s of requests); FUZZ_SEED replays a run.
//
//   npx jest test/hostile/openapi-fuzz.test.ts
//   FUZZ_SEED=1234 FUZZ_BUDGET_MS=300000 npx jest test/hostile/openapi-fuzz.test.ts

const ROOT = path.resolve(__dirname, "../..");
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_426);
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 90_000);
/** Requests per operation before the budget is split: a third valid, the rest mutated. */
const MAX_PER_OPERATION = 24;

let db: TestDatabase;
const redis = testRedisPrefix("fuzz");
let child: ChildProcess | undefined;
let output = "";
let base = "";
let adminKey = "";
/** The in-app inbox's operations take an inbox token instead of a key (docs/inbox.md). */
let inboxToken = "";
/** Its own connection pool, closed at the end, so no keep-alive socket outlives the test. */
const dispatcher = new Agent({ keepAliveTimeout: 1_000 });
/** Statuses seen, by kind of request: the valid ones must often get through. */
const seen = { valid: new Map<number, number>(), mutated: new Map<number, number>() };

beforeAll(async () => {
  db = await createTestDatabase("fuzz");
  adminKey = (
    await createApiKey(
      { prisma: db.prisma, now: () => new Date() },
      { name: "fuzz", scopes: ["admin"], agent: null },
    )
  ).key;
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  base = `http://127.0.0.1:${port}`;
  const cwd = mkdtempSync(path.join(tmpdir(), "svc-fuzz-"));
  writeFileSync(
    path.join(cwd, "svc.yaml"),
    [
      "api:",
      "  public_url: https://svc.example",
      "  rate_limit: { enabled: false }",
      "channels:",
      "  console: { provider: console }",
      "  email: { provider: console }",
      "  sms: { provider: console }",
      "  in_app: { provider: inbox }",
      "",
    ].join("\n"),
  );
  child = spawn(
    process.execPath,
    ["-r", path.join(ROOT, "scripts/register-ts.cjs"), path.join(ROOT, "apps/api/src/main.ts")],
    {
      cwd,
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: db.databaseUrl,
        REDIS_URL: redis.redisUrl,
        SVC__REDIS__PREFIX: redis.prefix,
        SVC_SECRET_KEY: randomBytes(32).toString("base64url"),
        PORT: String(port),
        SVC__API__HOST: "127.0.0.1",
        SVC__LOG__LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  await waitFor(
    async () => (await fetch(`${base}/readyz`, { dispatcher }).catch(() => null))?.status === 200 || null,
    {
      timeoutMs: 120_000,
      intervalMs: 250,
      what: "/readyz 200",
    },
  );
  const person = await fetch(`${base}/v1/recipients/fuzz-person`, {
    method: "PUT",
    headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
    body: "{}",
    dispatcher,
  });
  expect(person.status).toBe(201);
  const minted = await fetch(`${base}/v1/recipients/fuzz-person/inbox-token`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminKey}` },
    dispatcher,
  });
  inboxToken = ((await minted.json()) as { token: string }).token;
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    if (child.exitCode === null) child.kill("SIGKILL");
  }
  await db?.drop();
  await redis.cleanup();
  await dispatcher.close();
}, 60_000);

interface Failure {
  label: string;
  status: number;
  why: string;
}

async function send(request: FuzzRequest, key: string | null): Promise<Failure | null> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (request.contentType) headers["content-type"] = request.contentType;
  let response: Awaited<ReturnType<typeof fetch>>;
  try {
    response = await fetch(`${base}${request.url}`, {
      method: request.method,
      headers,
      body: request.body,
      signal: AbortSignal.timeout(30_000),
      dispatcher,
    });
  } catch (error) {
    return { label: request.label, status: 0, why: `no answer: ${(error as Error).message}` };
  }
  const tally = request.label.includes(" valid #") ? seen.valid : seen.mutated;
  tally.set(response.status, (tally.get(response.status) ?? 0) + 1);
  // An accepted inbox stream stays open: its answer is the status and headers.
  if (
    response.status === 200 &&
    (response.headers.get("content-type") ?? "").startsWith("text/event-stream")
  ) {
    await response.body?.cancel();
    return null;
  }
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  if (response.status >= 500)
    return { label: request.label, status: response.status, why: text.slice(0, 300) };
  if (response.status >= 400) {
    if (!type.startsWith("application/problem+json"))
      return { label: request.label, status: response.status, why: `content-type ${type}` };
    const problem = JSON.parse(text) as { status?: unknown; title?: unknown; detail?: unknown };
    if (
      problem.status !== response.status ||
      typeof problem.title !== "string" ||
      typeof problem.detail !== "string"
    )
      return { label: request.label, status: response.status, why: `not a problem: ${text.slice(0, 200)}` };
  }
  return null;
}

it("no request drawn from the OpenAPI document, valid or mutated, gets a 5xx or a 4xx that is not a problem", async () => {
  const doc = loadOpenApiDocument() as unknown as Doc;
  const operations = operationsOf(doc);
  expect(operations.length).toBeGreaterThan(50);

  // Size the run to the budget: a first pass at a few requests per operation measures the pace.
  const started = performance.now();
  const failures: Failure[] = [];
  let sent = 0;
  const inboxOperation = (op: (typeof operations)[number]) =>
    ((op.operation.security ?? []) as Record<string, unknown>[]).some((s) => "inboxToken" in s);
  const run = async (requests: FuzzRequest[], key: string | null) => {
    for (const request of requests) {
      const failure = await send(request, key);
      sent += 1;
      if (failure) failures.push(failure);
    }
  };
  for (const [index, op] of operations.entries()) {
    await run(
      requestsFor(doc, op, { valid: 2, mutated: 2, seed: SEED + index }),
      inboxOperation(op) ? inboxToken : adminKey,
    );
  }
  const perRequest = (performance.now() - started) / Math.max(1, sent);
  const perOperation = Math.min(
    MAX_PER_OPERATION,
    Math.max(0, Math.floor((BUDGET_MS - (performance.now() - started)) / perRequest / operations.length)),
  );
  const valid = Math.ceil(perOperation / 3);
  for (const [index, op] of operations.entries()) {
    await run(
      requestsFor(doc, op, { valid, mutated: perOperation - valid, seed: SEED * 7 + index }),
      inboxOperation(op) ? inboxToken : adminKey,
    );
  }
  // Without a key: authentication comes first and is a problem too.
  for (const [index, op] of operations.entries()) {
    await run(requestsFor(doc, op, { valid: 1, mutated: 1, seed: SEED * 13 + index }), null);
  }
  console.log(
    `fuzz: ${sent} requests over ${operations.length} operations in ${Math.round((performance.now() - started) / 1000)} s ` +
      `(${perOperation + 6} per operation, seed ${SEED}), ${failures.length} failures`,
  );
  const histogram = (tally: Map<number, number>) =>
    [...tally.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status}: ${n}`)
      .join(", ");
  console.log(`fuzz statuses: valid {${histogram(seen.valid)}}; mutated {${histogram(seen.mutated)}}`);
  expect(failures).toEqual([]);
  // The draws follow the document closely enough to get past validation often.
  const validOk = [...seen.valid.entries()].filter(([status]) => status < 300).reduce((n, [, c]) => n + c, 0);
  expect(validOk).toBeGreaterThan(50);

  // Healthy afterwards, and still doing its work.
  expect((await fetch(`${base}/healthz`, { dispatcher })).status).toBe(200);
  expect((await fetch(`${base}/readyz`, { dispatcher })).status).toBe(200);
  const categories = await fetch(`${base}/v1/categories`, {
    headers: { authorization: `Bearer ${adminKey}` },
    dispatcher,
  });
  expect(categories.status).toBe(200);
  expect(child!.exitCode).toBeNull();

  // Not one error line in the service's log.
  const errorLines = output
    .split("\n")
    .filter((line) => line.trim() !== "")
    .filter((line) => {
      try {
        return (JSON.parse(line) as { level?: string }).level === "error";
      } catch {
        return /error/i.test(line); // a line that is not the logger's own: an uncaught failure
      }
    });
  expect(errorLines.map((line) => line.slice(0, 400))).toEqual([]);
}, 600_000);
