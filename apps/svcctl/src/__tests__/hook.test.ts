import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { HOOK_PAYLOADS } from "@svc/testkit";
import { startHarness, type Harness } from "../../../api/src/__tests__/service-harness";
import { EMPTY_CWD, svcctl } from "./harness";

// `svcctl hook` against an API listening on a port (docs/hooks.md): real Claude Code and Codex
// payloads become exactly the documented events, a repeated hook reports once, and a service that
// cannot be reached or refuses never fails the agent (exit 0, one line on stderr) unless --strict.

const MAIN = path.join(__dirname, "..", "main.ts");
const REGISTER = path.join(__dirname, "../../../../scripts/register-ts.cjs");
const SESSION = "8a0b6f0e-3c2d-4e1f-9a7b-5c6d7e8f9a0b";

let h: Harness;
let server: Server;
let env: Record<string, string>;

beforeAll(async () => {
  h = await startHarness("svcctl_hook");
  server = h.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const key = await h.keyWith(["events:write"]);
  env = { SVC_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, SVC_API_KEY: key };
}, 60_000);
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.close();
});

/** The events svc stored with this idempotency key prefix, oldest first. */
const eventsFor = (recipient: string) =>
  h.prisma.event.findMany({ where: { recipient_external_id: recipient }, orderBy: { created_at: "asc" } });

const claude = (payload: object, args: string[] = [], extraEnv: Record<string, string> = {}) =>
  svcctl(["hook", ...args], { ...env, ...extraEnv }, { stdin: JSON.stringify(payload) });

describe("real payloads become the documented events", () => {
  it.each([
    [
      "Claude Code Stop",
      HOOK_PAYLOADS.claudeCodeStop,
      "agent.stop",
      {
        hook: "Stop",
        session_id: SESSION,
        project: "shop",
        agent: "claude-code",
        message: HOOK_PAYLOADS.claudeCodeStop.last_assistant_message,
      },
    ],
    [
      "Claude Code SubagentStop",
      HOOK_PAYLOADS.claudeCodeSubagentStop,
      "agent.stop",
      {
        hook: "SubagentStop",
        session_id: SESSION,
        project: "shop",
        agent: "claude-code",
        message: HOOK_PAYLOADS.claudeCodeSubagentStop.last_assistant_message,
      },
    ],
    [
      "Claude Code Notification",
      HOOK_PAYLOADS.claudeCodeNotification,
      "agent.notification",
      {
        hook: "Notification",
        session_id: SESSION,
        project: "shop",
        agent: "claude-code",
        message: "Claude needs your permission to use Bash",
      },
    ],
    [
      "Claude Code SessionEnd",
      HOOK_PAYLOADS.claudeCodeSessionEnd,
      "agent.session_end",
      {
        hook: "SessionEnd",
        session_id: SESSION,
        project: "shop",
        agent: "claude-code",
        stop_reason: "prompt_input_exit",
      },
    ],
  ])("%s on stdin", async (label, payload, name, data) => {
    const recipient = `ada-${label.replace(/\W+/g, "-").toLowerCase()}`;
    expect(await claude(payload, ["--recipient", recipient])).toEqual({ code: 0, stdout: "", stderr: "" });
    const [event, ...more] = await eventsFor(recipient);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ name, recipient_external_id: recipient, source: "api" });
    expect(event!.data).toStrictEqual(data);
  });

  it("Codex agent-turn-complete as the JSON argument, recipient from SVC_RECIPIENT", async () => {
    const run = await svcctl(
      ["hook", "--format", "codex", JSON.stringify(HOOK_PAYLOADS.codexAgentTurnComplete)],
      {
        ...env,
        SVC_RECIPIENT: "ada-codex",
      },
    );
    expect(run).toEqual({ code: 0, stdout: "", stderr: "" });
    const [event, ...more] = await eventsFor("ada-codex");
    expect(more).toEqual([]);
    expect(event).toMatchObject({ name: "agent.stop" });
    expect(event!.data).toStrictEqual({
      hook: "agent-turn-complete",
      session_id: "b5f6c1c2-1111-2222-3333-444455556666",
      project: "example",
      agent: "codex",
      message: "Rename complete and verified `cargo build` succeeds.",
    });
  });

  it("--event, --project and --agent win over the payload", async () => {
    const run = await claude(HOOK_PAYLOADS.claudeCodeStop, [
      "-r",
      "ada-options",
      "--event",
      "build.done",
      "--project",
      "web",
      "--agent",
      "ada-laptop",
    ]);
    expect(run.code).toBe(0);
    const [event] = await eventsFor("ada-options");
    expect(event).toMatchObject({
      name: "build.done",
      data: { project: "web", agent: "ada-laptop", hook: "Stop" },
    });
  });
});

describe("a repeated hook reports once", () => {
  it("the same payload twice, in another key order, is one event; the HTTP hook finds the same one", async () => {
    const { hook_event_name, ...rest } = HOOK_PAYLOADS.claudeCodeStop;
    expect((await claude(HOOK_PAYLOADS.claudeCodeStop, ["-r", "ada-repeat"])).code).toBe(0);
    expect(await claude({ ...rest, hook_event_name }, ["-r", "ada-repeat"])).toEqual({
      code: 0,
      stdout: "",
      stderr: "",
    });
    const events = await eventsFor("ada-repeat");
    expect(events).toHaveLength(1);
    // POST /v1/hooks/claude-code maps the same JSON exactly as svcctl hook: the same event, a duplicate.
    const http = await h
      .as(env.SVC_API_KEY)
      .post("/v1/hooks/claude-code?recipient=ada-repeat")
      .send(HOOK_PAYLOADS.claudeCodeStop)
      .expect(200);
    expect(http.body).toMatchObject({
      id: events[0]!.id,
      duplicate: true,
      name: "agent.stop",
      data: events[0]!.data,
    });
  });
});

describe("never fails the agent", () => {
  function runBin(args: string[], binEnv: Record<string, string>, stdin: string) {
    return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ["-r", REGISTER, MAIN, "hook", ...args], {
        cwd: EMPTY_CWD,
        env: { PATH: process.env.PATH ?? "", ...binEnv },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(stdin);
    });
  }
  const stop = JSON.stringify(HOOK_PAYLOADS.claudeCodeStop);
  let blackhole: Server;
  let blackholeUrl: string;
  let closedUrl: string;

  beforeAll(async () => {
    // Accepts connections and never answers: the hook must give up at its timeout.
    blackhole = createServer(() => undefined);
    blackhole.listen(0, "127.0.0.1");
    await new Promise((resolve) => blackhole.once("listening", resolve));
    blackholeUrl = `http://127.0.0.1:${(blackhole.address() as AddressInfo).port}`;
    // A port nothing listens on (one that was free a moment ago).
    const probe = createServer().listen(0, "127.0.0.1");
    await new Promise((resolve) => probe.once("listening", resolve));
    closedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise((resolve) => probe.close(resolve));
  });
  afterAll(() => {
    blackhole.closeAllConnections();
    blackhole.close();
  });

  it("an unreachable service: exit 0 with one line on stderr; --strict exits 5", async () => {
    const unreachable = { SVC_URL: closedUrl, SVC_API_KEY: "svc_x", SVC_RECIPIENT: "ada" };
    const [relaxed, strict] = await Promise.all([
      runBin([], unreachable, stop),
      runBin(["--strict"], unreachable, stop),
    ]);
    expect(relaxed).toMatchObject({
      code: 0,
      stdout: "",
      stderr: `svcctl hook: event not reported: cannot reach svc at ${closedUrl} (ECONNREFUSED)\n`,
    });
    expect(strict).toMatchObject({
      code: 5,
      stdout: "",
      stderr: `error: cannot reach svc at ${closedUrl} (ECONNREFUSED)\n`,
    });
  }, 30_000);

  it("a service that does not answer: gives up at --timeout, exit 0, one line", async () => {
    const silent = { SVC_URL: blackholeUrl, SVC_API_KEY: "svc_x", SVC_RECIPIENT: "ada" };
    const started = Date.now();
    const run = await svcctl(["hook", "--timeout", "1"], silent, { stdin: stop });
    const elapsed = Date.now() - started;
    expect(run).toMatchObject({ code: 0, stdout: "" });
    expect(run.stderr).toMatch(
      /^svcctl hook: event not reported: (cannot reach svc at \S+ \(timed out\)|gave up after 1 s)\n$/,
    );
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(1_500);
    // The default is 5 s; the process itself ends once it gave up.
    const spawned = await runBin(["--timeout", "1"], silent, stop);
    expect(spawned).toMatchObject({ code: 0, stdout: "" });
    expect(spawned.stderr.split("\n")).toHaveLength(2); // one line
  }, 30_000);

  it("a service that refuses (a key without events:write) or a bad payload: exit 0 and one line, or an exit code with --strict", async () => {
    const readOnly = await h.keyWith(["messages:read"]);
    const refused = await claude(HOOK_PAYLOADS.claudeCodeStop, ["-r", "ada"], { SVC_API_KEY: readOnly });
    expect(refused).toEqual({
      code: 0,
      stdout: "",
      stderr: "svcctl hook: event not reported: 403 Forbidden: this API key lacks the scope 'events:write'\n",
    });
    expect(
      (await claude(HOOK_PAYLOADS.claudeCodeStop, ["-r", "ada", "--strict"], { SVC_API_KEY: readOnly })).code,
    ).toBe(1);

    expect(await claude({ hook_event_name: "PreToolUse" }, ["-r", "ada"])).toEqual({
      code: 0,
      stdout: "",
      stderr:
        "svcctl hook: event not reported: hook 'PreToolUse' is not reported (known: Stop, SubagentStop, Notification, SessionEnd; or give an event name)\n",
    });
    expect(await svcctl(["hook", "-r", "ada"], env, { stdin: "not json" })).toEqual({
      code: 0,
      stdout: "",
      stderr: "svcctl hook: event not reported: the hook payload on stdin is not JSON\n",
    });
    expect(await claude(HOOK_PAYLOADS.claudeCodeStop, [])).toEqual({
      code: 0,
      stdout: "",
      stderr: "svcctl hook: event not reported: no recipient: set SVC_RECIPIENT or pass --recipient\n",
    });
    expect((await claude(HOOK_PAYLOADS.claudeCodeStop, ["--strict"])).code).toBe(3);
  });
});
