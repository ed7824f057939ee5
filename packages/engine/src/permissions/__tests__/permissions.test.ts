import { parseConfig } from "@svc/config";
import { AppError, parsePermissionRules, type Principal, type ToolCallRecord } from "@svc/core";
import { createLogCapture, createLogger } from "@svc/log";
import { createNoticeBus, createQueues, type NoticeBus, type Queues } from "@svc/queue";
import {
  createTestDatabase,
  HOOK_PAYLOADS,
  testRedisPrefix,
  waitFor,
  type TestDatabase,
  type TestRedisPrefix,
} from "@svc/testkit";
import { agentsResource } from "../../agents/agent-crud";
import { createApiKey } from "../../api-keys/create-api-key";
import { createApprovalWaiters } from "../../approvals/approval-waiters";
import { decideApprovalByKey } from "../../approvals/decide-by-key";
import { startOutboxRelay, type OutboxRelay } from "../../outbox/outbox-relay";
import { askPermission, type PermissionPorts } from "../ask-permission";
import { answerPermissionHook, type PermissionHookDeps } from "../permission-hook";
import { endSessionGrantsOf, listSessionGrants } from "../session-grants";

// Asking a person before a coding agent's tool call (docs/hooks.md "Asking a person before a tool
// call", "Allow for this session", "Asking over Claude Code's HTTP hooks"): local rules decide
// without asking anyone (deny wins); otherwise a masked approval request is created, held until a
// reviewer decides or the timeout passes (then withdrawn), and answered in Claude Code's shapes.
// Session grants are scoped to whoever asked and to the session.

const NOW = new Date("2024-01-15T12:00:00.000Z");
const SESSION = HOOK_PAYLOADS.claudeCodePreToolUseBash.session_id;
// Assembled from parts so this file holds no scannable credential.
const ACCESS_KEY = ["AKIA", "QYLPMN5HHHFPZAM2"].join("");

let db: TestDatabase;
let redis: TestRedisPrefix;
let queues: Queues;
let notices: NoticeBus;
let relay: OutboxRelay;
let deps: PermissionHookDeps;
let clock: Date;
let coder: Principal; // an agent key, as the hook normally uses
let otherKey: Principal; // a key bound to no agent, asking for itself
let reviewer: Principal; // decides through the API

beforeAll(async () => {
  db = await createTestDatabase("engine_permissions");
  redis = testRedisPrefix("engine_permissions");
  queues = createQueues({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  notices = createNoticeBus({ redisUrl: redis.redisUrl, prefix: redis.prefix });
  const logger = createLogger({
    service: "permissions-test",
    level: "error",
    stream: createLogCapture().stream,
  });
  // The relay publishes `approvals:<id>` once a decision committed: the held wait hears it.
  relay = startOutboxRelay({ prisma: db.prisma, notices, consumers: [], logger, pollMs: 200 });
  const now = () => clock;
  deps = {
    prisma: db.prisma,
    config: parseConfig({}, {}),
    logger,
    now,
    queues,
    approvalWaiters: createApprovalWaiters({ notices, maxWaiters: 20, maxPerKey: 20, now }),
  };
  clock = NOW;
  await agentsResource({ prisma: db.prisma, now }).create(
    "coder",
    { name: "Coder", reviewers: ["ada", "bob"] },
    NOW,
  );
  coder = await principalOf("coder key", ["messages:write", "messages:read"], "coder");
  otherKey = await principalOf("other key", ["messages:write", "messages:read"], null);
  reviewer = await principalOf("ops", ["messages:write", "messages:read"], null);
});
afterAll(async () => {
  await relay.close();
  await notices.close();
  await queues.close();
  await redis.cleanup();
  await db.drop();
});
beforeEach(() => {
  clock = NOW;
});

async function principalOf(name: string, scopes: Principal["scopes"], agentKey: string | null) {
  const key = await createApiKey(
    { prisma: db.prisma, now: () => NOW },
    { name, scopes: [...scopes], agent: agentKey },
  );
  return { keyId: key.id, keyName: name, scopes, agentKey } satisfies Principal;
}

const bash = (command: string, hook = "PreToolUse", session: string = SESSION) => ({
  ...HOOK_PAYLOADS.claudeCodePreToolUseBash,
  hook_event_name: hook,
  session_id: session,
  tool_input: { command },
});

function ask(
  payload: unknown,
  options: { reviewers?: string[]; timeoutSeconds?: number; onTimeout?: "deny" | "ask" } = {},
  principal: Principal = coder,
  signal?: AbortSignal,
) {
  return answerPermissionHook(
    deps,
    principal,
    payload,
    {
      reviewers: options.reviewers ?? ["ada"],
      timeoutSeconds: options.timeoutSeconds ?? 20,
      onTimeout: options.onTimeout ?? "deny",
    },
    signal,
  );
}

const commandOf = (metadata: unknown) =>
  (metadata as { tool_call?: { tool_input?: { command?: string } } }).tool_call?.tool_input?.command;

/** The one request the hook created for this command, once it is stored. */
const requestFor = (command: string) =>
  waitFor(
    async () =>
      (await db.prisma.approvalRequest.findMany()).find((row) => commandOf(row.metadata) === command),
    { timeoutMs: 5_000, what: `the request for ${command}` },
  );

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("askPermission", () => {
  const untouched: PermissionPorts = {
    mask: () => Promise.reject(new Error("mask called")),
    sessionGrants: () => Promise.reject(new Error("sessionGrants called")),
    createRequest: () => Promise.reject(new Error("createRequest called")),
    waitForDecision: () => Promise.reject(new Error("waitForDecision called")),
    withdraw: () => Promise.reject(new Error("withdraw called")),
  };
  const call = (command: string): ToolCallRecord => ({
    hook: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: null,
    session_id: "s",
    cwd: "/home/ada/src/shop",
    project: "shop",
    agent: "claude-code",
    permission_mode: null,
  });
  const rules = {
    allow: parsePermissionRules(["Bash(npm test:*)", "Bash(rm:*)"]),
    deny: parsePermissionRules(["Bash(rm -rf /:*)", "Bash(git push --force:*)"]),
  };
  const options = {
    reviewers: ["ada"],
    timeoutSeconds: 30,
    onTimeout: "deny" as const,
    rules,
    now: () => NOW,
  };

  test("a local rule answers at once and nothing leaves the machine; deny wins over allow", async () => {
    expect(await askPermission(untouched, call("npm test -- --watch"), options)).toEqual({
      verdict: { decision: "allow", reason: "Allowed by the local rule Bash(npm test:*)" },
      by: "rule",
    });
    expect(await askPermission(untouched, call("rm -rf / --no-preserve-root"), options)).toEqual({
      verdict: { decision: "deny", reason: "Denied by the local rule Bash(rm -rf /:*)" },
      by: "rule",
    });
    // One denied part denies the whole command, even when another part is allowed.
    expect(await askPermission(untouched, call("npm test && git push --force origin main"), options)).toEqual(
      {
        verdict: { decision: "deny", reason: "Denied by the local rule Bash(git push --force:*)" },
        by: "rule",
      },
    );
    // Not covered by any rule: the person is asked (the first port is reached).
    await expect(askPermission(untouched, call("npm run build"), options)).rejects.toThrow("mask called");
  });
});

describe("answerPermissionHook", () => {
  test("held until a reviewer approves; the request masked, for the named reviewers, importance high", async () => {
    const answering = ask(bash("npm run db:migrate -- --env production"), { timeoutSeconds: 20 });
    const row = await requestFor("npm run db:migrate -- --env production");
    expect(row).toMatchObject({
      status: "pending",
      sender: "coder",
      agent_key: "coder",
      api_key_id: coder.keyId,
      title: "claude-code in shop wants to run Bash",
      body: `$ npm run db:migrate -- --env production\n\nProject: shop · Session: ${SESSION}`,
      reviewers: ["ada"],
      importance: "high",
      expires_at: new Date(NOW.getTime() + 60_000), // the timeout, at least 60 s
    });
    expect((row.metadata as { tool_call: Record<string, unknown> }).tool_call).toMatchObject({
      hook: "PreToolUse",
      tool_name: "Bash",
      session_id: SESSION,
      project: "shop",
      agent: "claude-code",
    });
    await decideApprovalByKey(deps, reviewer, row.id, { action: "approve", comment: "backup is fresh" });
    expect(await answering).toStrictEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        permissionDecisionReason: "Allowed by ops: backup is fresh",
      },
    });
  });

  test("PermissionRequest: a rejection denies with the reviewer's comment", async () => {
    const answering = ask(bash("git push origin main", "PermissionRequest"), { reviewers: ["ada", "bob"] });
    const row = await requestFor("git push origin main");
    expect(row.reviewers).toEqual(["ada", "bob"]);
    await decideApprovalByKey(deps, reviewer, row.id, { action: "reject", reason: "never on a Friday" });
    expect(await answering).toStrictEqual({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "deny", message: "Denied by ops: never on a Friday" },
      },
    });
    expect(await db.prisma.approvalRequest.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      status: "rejected",
      decided_by: "ops",
      decided_by_key_id: reviewer.keyId,
      comment: "never on a Friday",
    });
  });

  test("nobody decides in time: on_timeout answers and the request is withdrawn", async () => {
    const [denied, handedBack] = await Promise.all([
      ask(bash("rm -rf build"), { timeoutSeconds: 1 }),
      ask(bash("rm -rf dist", "PermissionRequest"), { timeoutSeconds: 1, onTimeout: "ask" }),
    ]);
    expect(denied).toStrictEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "No decision from a reviewer within 1 s; denied",
      },
    });
    // A PermissionRequest handed back to Claude Code's own dialog answers nothing.
    expect(handedBack).toBeNull();
    for (const command of ["rm -rf build", "rm -rf dist"])
      expect(await requestFor(command)).toMatchObject({
        status: "withdrawn",
        decided_by: null,
        decided_at: NOW,
      });
    // A late decision is refused: the request was withdrawn.
    const late = await requestFor("rm -rf build");
    expect(await refusal(decideApprovalByKey(deps, reviewer, late.id, { action: "approve" }))).toMatchObject({
      code: "invalid_state",
      status: 409,
    });
  });

  test("a client that goes away ends the wait and withdraws its request", async () => {
    const controller = new AbortController();
    const answering = ask(bash("terraform apply"), { timeoutSeconds: 60 }, coder, controller.signal);
    const row = await requestFor("terraform apply");
    controller.abort();
    await answering.catch(() => undefined);
    expect((await db.prisma.approvalRequest.findUniqueOrThrow({ where: { id: row.id } })).status).toBe(
      "withdrawn",
    );
  });

  test("a wait refused (no room for waiters) withdraws the request it made, then fails with 429", async () => {
    const full = {
      ...deps,
      approvalWaiters: createApprovalWaiters({ notices, maxWaiters: 1, maxPerKey: 1, now: deps.now }),
    };
    // Another wait of this process holds the only place until it is let go.
    const letGo = new AbortController();
    const holding = full.approvalWaiters.wait({
      channel: "approvals:apr_none",
      key: coder.keyId,
      until: new Date(NOW.getTime() + 20_000),
      signal: letGo.signal,
      read: async () => false,
      done: (value) => value,
    });
    const error = await refusal(
      answerPermissionHook(full, coder, bash("make deploy"), {
        reviewers: ["ada"],
        timeoutSeconds: 30,
        onTimeout: "deny",
      }),
    );
    expect(error).toMatchObject({ code: "rate_limited", status: 429 });
    expect((await requestFor("make deploy")).status).toBe("withdrawn");
    letGo.abort();
    expect(await holding).toBeNull();
    expect(full.approvalWaiters.active).toBe(0);
  });

  test("secrets in the tool input are masked before anything is stored", async () => {
    const command = `aws configure set aws_access_key_id ${ACCESS_KEY} && ./deploy.sh`;
    const masked = "aws configure set aws_access_key_id [secret: AWS access key] && ./deploy.sh";
    const answering = ask(bash(command), { timeoutSeconds: 1 });
    const row = await requestFor(masked);
    expect(row.body).toContain(`$ ${masked}`);
    expect(JSON.stringify(row)).not.toContain(ACCESS_KEY);
    await answering;
  });

  test("refusals: a hook that asks nothing is 422; a reviewer the agent may not ask is 403; nothing stored", async () => {
    const before = await db.prisma.approvalRequest.count();
    const stop = await refusal(ask(HOOK_PAYLOADS.claudeCodeStop));
    expect(stop).toMatchObject({ code: "validation", status: 422 });
    expect(stop.errors).toEqual([{ loc: ["body"], msg: expect.any(String), type: "value_error" }]);
    expect(await refusal(ask({ ...bash("ls"), tool_input: "ls" }))).toMatchObject({ status: 422 });
    expect(await refusal(ask(bash("ls"), { reviewers: ["ada", "mallory"] }))).toMatchObject({
      code: "forbidden",
      status: 403,
    });
    expect(await db.prisma.approvalRequest.count()).toBe(before);
  });
});

describe("Allow for this session", () => {
  const session = "5e55e55e-0000-4000-8000-000000000001";

  test("the grant answers later calls of the session at once, for the asker only, until the session ends", async () => {
    const first = ask(bash("npm test -- --watch", "PreToolUse", session));
    const row = await requestFor("npm test -- --watch");
    const approved = await decideApprovalByKey(deps, reviewer, row.id, {
      action: "approve",
      forSession: true,
    });
    const expiresAt = new Date(NOW.getTime() + 86_400_000).toISOString();
    expect(approved.session_grant).toEqual({
      session_id: session,
      rules: ["Bash(npm test:*)"],
      expires_at: expiresAt,
    });
    expect(await first).toMatchObject({
      hookSpecificOutput: {
        permissionDecision: "allow",
        permissionDecisionReason: "Allowed for this session by ops (Bash(npm test:*))",
      },
    });
    expect(await listSessionGrants(deps, coder, session)).toEqual({
      session_id: session,
      rules: ["Bash(npm test:*)"],
      grants: [
        {
          id: expect.stringMatching(/^sgr_/),
          rules: ["Bash(npm test:*)"],
          approval_id: row.id,
          granted_by: "ops",
          created_at: NOW.toISOString(),
          expires_at: expiresAt,
        },
      ],
    });
    // Another key, another session: none.
    expect((await listSessionGrants(deps, otherKey, session)).grants).toEqual([]);
    expect((await listSessionGrants(deps, coder, "another-session")).grants).toEqual([]);

    const requests = await db.prisma.approvalRequest.count();
    expect(await ask(bash("npm test", "PreToolUse", session))).toStrictEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "allow",
        permissionDecisionReason: "Allowed for this session by ops (Bash(npm test:*))",
      },
    });
    expect(await db.prisma.approvalRequest.count()).toBe(requests);
    // Not covered: a chained command asks again.
    const chained = await ask(bash("npm test && curl x | sh", "PreToolUse", session), { timeoutSeconds: 1 });
    expect(chained).toMatchObject({ hookSpecificOutput: { permissionDecision: "deny" } });
    expect(await db.prisma.approvalRequest.count()).toBe(requests + 1);

    // The grant lapses after approvals.session_grant_seconds.
    clock = new Date(NOW.getTime() + 86_400_000);
    expect((await listSessionGrants(deps, coder, session)).rules).toEqual([]);
    clock = NOW;
    expect(await endSessionGrantsOf(deps, coder, session)).toBe(1);
    expect(await endSessionGrantsOf(deps, coder, session)).toBe(0);
    expect((await listSessionGrants(deps, coder, session)).grants).toEqual([]);
  });

  test("a key bound to no agent reads the grants of its own requests; several grants list their rules once, in order", async () => {
    const session2 = "5e55e55e-0000-4000-8000-000000000002";
    const grant = async (command: string) => {
      clock = new Date(clock.getTime() + 1_000);
      const answering = ask(bash(command, "PreToolUse", session2), {}, otherKey);
      const row = await requestFor(command);
      await decideApprovalByKey(deps, reviewer, row.id, { action: "approve", forSession: true });
      await answering;
    };
    await grant("git status --short");
    await grant("npm run lint && git status");
    const view = await listSessionGrants(deps, otherKey, session2);
    expect(view.rules).toEqual(["Bash(git status:*)", "Bash(npm run:*)"]);
    expect(view.grants.map((g) => g.rules)).toEqual([
      ["Bash(git status:*)"],
      ["Bash(npm run:*)", "Bash(git status:*)"],
    ]);
    // The agent's key does not see another key's grants, nor can it end them.
    expect((await listSessionGrants(deps, coder, session2)).grants).toEqual([]);
    expect(await endSessionGrantsOf(deps, coder, session2)).toBe(0);
    expect(
      await db.prisma.sessionGrant.count({ where: { owner: `key:${otherKey.keyId}`, session_id: session2 } }),
    ).toBe(2);
  });
});
