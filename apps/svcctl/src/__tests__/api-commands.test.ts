import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { startApprovalsHarness, type ApprovalsHarness } from "../../../api/src/__tests__/approval-fixtures";
import { svcctl } from "./harness";

// svcctl's API commands against an API listening on a port (docs/svcctl.md "Talking to the API"):
// JSON when piped (parsed here), a table on a terminal, and the documented exit codes.

let h: ApprovalsHarness;
let server: Server;
let url: string;
let closedUrl: string;
/** Environment for a key: the URL and the key. */
const as = (key: string) => ({ SVC_URL: url, SVC_API_KEY: key });

beforeAll(async () => {
  h = await startApprovalsHarness("svcctl_api");
  server = h.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A port nothing listens on (one that was free a moment ago).
  const probe = createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => probe.once("listening", resolve));
  closedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise((resolve) => probe.close(resolve));
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

/** Runs svcctl, expects exit 0 and JSON on stdout, and parses it. */
async function json<T = Record<string, unknown>>(argv: string[], env: Record<string, string>): Promise<T> {
  const run = await svcctl(argv, env);
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(run.stdout) as T;
}

const SEND = ["send", "alice", "-t", "deploy", "--category", "transactional", "--channel", "console"];

describe("send, events post", () => {
  it("send prints the message as JSON when piped; the agent's is held for approval", async () => {
    const queued = await json([...SEND, "-d", '{"version":"3.0.0"}'], as(h.adminKey));
    expect(queued).toMatchObject({
      status: "queued",
      recipient: "alice",
      agent: null,
      category: "transactional",
    });
    const held = await json([...SEND, "-d", '{"version":"3.0.1"}'], as(h.agentKey));
    expect(held).toMatchObject({ status: "pending_approval", agent: "bot" });
  });

  it("events post answers the accepted event; a repeated idempotency key is a duplicate", async () => {
    const args = [
      "events",
      "post",
      "deploy.done",
      "-r",
      "alice",
      "-d",
      '{"version":"3"}',
      "--idempotency-key",
      "d-3",
    ];
    const first = await json(args, as(h.adminKey));
    expect(first).toMatchObject({
      name: "deploy.done",
      recipient: "alice",
      duplicate: false,
      data: { version: "3" },
    });
    expect(await json(args, as(h.adminKey))).toMatchObject({ id: first.id, duplicate: true });
  });
});

describe("messages", () => {
  it("list, get, approve, reject and cancel, with JSON parsed", async () => {
    const held = await json([...SEND, "-d", '{"version":"4.0.0"}'], as(h.agentKey));
    const page = await json<{ items: { id: string }[]; next_cursor: string | null }>(
      ["messages", "list", "--status", "pending_approval", "--agent", "bot", "--limit", "50"],
      as(h.reviewerKey),
    );
    expect(page.items.map((m) => m.id)).toContain(held.id);
    expect(await json(["messages", "get", held.id as string], as(h.reviewerKey))).toMatchObject({
      id: held.id,
    });

    const approved = await json(
      ["messages", "approve", held.id as string, "--reason", "fine"],
      as(h.reviewerKey),
    );
    expect(approved).toMatchObject({ id: held.id, status: "queued" });
    const cancelled = await json(["messages", "cancel", held.id as string], as(h.reviewerKey));
    expect(cancelled).toMatchObject({ status: "cancelled", status_reason: "cancelled via API" });

    const other = await json([...SEND, "-d", '{"version":"4.0.1"}'], as(h.agentKey));
    const rejected = await json(
      ["messages", "reject", other.id as string, "--reason", "no"],
      as(h.reviewerKey),
    );
    expect(rejected).toMatchObject({ status: "cancelled", status_reason: "rejected: no" });
  });

  it("prints a table on a terminal, --json there too", async () => {
    const env = as(h.reviewerKey);
    const table = await svcctl(["messages", "list", "--limit", "2"], env, { tty: true });
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^ID\s+STATUS\s+REASON\s+RECIPIENT\s+CATEGORY\s+AGENT\s+CREATED$/);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^msg_\w+\s+\w+/);
    expect(table.stderr).toMatch(/^more: svcctl messages list --cursor \S+\n$/);
    const forced = await svcctl(["messages", "list", "--limit", "1", "--json"], env, { tty: true });
    expect(JSON.parse(forced.stdout)).toMatchObject({
      items: [expect.any(Object)],
      next_cursor: expect.any(String),
    });
  });
});

describe("approvals", () => {
  it("create, get, list, approve and reject", async () => {
    const created = await json(
      [
        "approvals",
        "create",
        "--title",
        "Refund A-1001?",
        "--reviewer",
        "rev-a,rev-b",
        "--expires-in",
        "7200",
        "--metadata",
        '{"order":"A-1001"}',
      ],
      as(h.agentKey),
    );
    expect(created).toMatchObject({
      status: "pending",
      agent: "bot",
      reviewers: ["rev-a", "rev-b"],
      metadata: { order: "A-1001" },
    });
    const id = created.id as string;
    expect(await json(["approvals", "get", id], as(h.agentKey))).toEqual(created);
    const page = await json<{ items: { id: string }[] }>(
      ["approvals", "list", "--status", "pending"],
      as(h.reviewerKey),
    );
    expect(page.items.map((a) => a.id)).toContain(id);
    expect(
      await json(["approvals", "approve", id, "--reason", "within policy"], as(h.reviewerKey)),
    ).toMatchObject({
      status: "approved",
      comment: "within policy",
    });
    const second = await json(
      ["approvals", "create", "--title", "Delete logs?", "--reviewer", "rev-a"],
      as(h.agentKey),
    );
    expect(await json(["approvals", "reject", second.id as string], as(h.reviewerKey))).toMatchObject({
      status: "rejected",
    });
  });
});

describe("exit codes", () => {
  it.each([
    [
      "an unknown id: 4",
      ["messages", "get", "msg_missing"],
      () => as(h.adminKey),
      4,
      /^error: 404 Not found: /,
    ],
    [
      "a refusal (403): 1",
      ["approvals", "approve", "apr_missing"],
      () => as(h.agentKey),
      1,
      /^error: 403 Forbidden: agent keys may not approve or reject\n$/,
    ],
    [
      "invalid input the API refuses: 2",
      ["send", "alice", "-t", "deploy", "--category", "transactional", "--channel", "not a channel!"],
      () => as(h.adminKey),
      2,
      /^error: 422 Unprocessable content: .*channels/,
    ],
    [
      "an unknown key: 3",
      ["messages", "list"],
      () => as(`svc_${"A".repeat(43)}`),
      3,
      /^error: 401 Unauthorized: unknown API key\n$/,
    ],
    [
      "no URL: 3",
      ["messages", "list"],
      () => ({ SVC_API_KEY: "svc_x" }),
      3,
      /^error: no API URL: set SVC_URL/,
    ],
    [
      "an unreachable API: 5",
      ["messages", "list"],
      () => ({ SVC_URL: closedUrl, SVC_API_KEY: "svc_x" }),
      5,
      /^error: cannot reach svc at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)\n$/,
    ],
    ["a bad --data: 2", [...SEND, "-d", "[1]"], () => as(h.adminKey), 2, /argument '\[1\]' is invalid/],
  ])("%s", async (_label, argv, env, code, stderr) => {
    const run = await svcctl(argv, env());
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code, stdout: "" });
    expect(run.stderr).toMatch(stderr);
  });

  it("a decision on a decided message: 1 (409 Invalid state)", async () => {
    const held = await json([...SEND, "-d", '{"version":"5"}'], as(h.agentKey));
    await json(["messages", "approve", held.id as string], as(h.reviewerKey));
    const again = await svcctl(["messages", "approve", held.id as string], as(h.reviewerKey));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: 409 Invalid state: message is queued; /);
  });

  it("--url and --key override the environment, before or after the command", async () => {
    const page = await svcctl(["--url", url, "messages", "list", "--key", h.adminKey, "--limit", "1"], {
      SVC_URL: "http://127.0.0.1:9",
      SVC_API_KEY: "svc_wrong",
    });
    expect(page.code).toBe(0);
    expect(JSON.parse(page.stdout)).toMatchObject({ items: expect.any(Array) });
  });
});

describe("help", () => {
  it.each([
    "send",
    "events post",
    "messages list",
    "messages get",
    "messages cancel",
    "messages approve",
    "messages reject",
    "approvals create",
    "approvals get",
    "approvals list",
    "approvals approve",
    "approvals reject",
    "hook",
    "mcp",
    "keys create",
    "keys list",
    "keys revoke",
    "migrate",
    "jobs retry-dead",
    "callbacks list",
    "callbacks retry",
  ])("svcctl %s --help shows an example", async (command) => {
    const run = await svcctl([...command.split(" "), "--help"], {});
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Usage: svcctl ${command}`);
    expect(run.stdout).toMatch(/Example[^\n]*\n {2}\$ svcctl|\nExample:\n {2}\$ \S/);
  });

  it("the linked bin answers: npx svcctl and npm run svcctl", async () => {
    const root = path.resolve(__dirname, "../../../..");
    const run = (command: string, args: string[]) =>
      new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
        const child = spawn(command, args, {
          cwd: root,
          env: process.env,
          stdio: ["ignore", "pipe", "ignore"],
        });
        let stdout = "";
        child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stdout }));
      });
    const [npx, npmRun] = await Promise.all([
      run("npx", ["--no-install", "svcctl", "send", "--help"]),
      run("npm", ["run", "-s", "svcctl", "--", "--version"]),
    ]);
    expect(npx.code).toBe(0);
    expect(npx.stdout).toContain("Usage: svcctl send [options] <recipient>");
    expect(npmRun).toEqual({ code: 0, stdout: "0.1.0\n" });
  }, 60_000);
});
