import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { createLogCapture, createLogger } from "@svc/log";
import { freePort, HOOK_PAYLOADS, waitFor } from "@svc/testkit";
import { startWorkerProcess, type WorkerProcess } from "@svc/worker";
import { launchChromium, SCREENSHOTS } from "../../../api/src/__tests__/chromium";
import { startReviewedApi, type Delivered, type ReviewedApi } from "../../../api/src/__tests__/reviewed-api";
import type { Harness } from "../../../api/src/__tests__/service-harness";
import { rowsHolding } from "../../../api/src/__tests__/stored-text";
import { EMPTY_CWD } from "./harness";

// The real `svcctl hook --ask` as Claude Code runs it (docs/hooks.md "Asking a person"): a child
// process with Claude Code's PreToolUse / PermissionRequest input on stdin, an API listening on a
// port with its workers (notifications delivered to a webhook receiver with the real review links,
// the outbox relay telling waiting reads), reviewers deciding through the API and through the
// review link in Debian's Chromium. Each answer is Claude Code's hook output on stdout, exit 0.

const MAIN = path.join(__dirname, "..", "main.ts");
const REGISTER = path.join(__dirname, "../../../../scripts/register-ts.cjs");
const SESSION = HOOK_PAYLOADS.claudeCodePreToolUseBash.session_id;
// Assembled from parts so this file holds no scannable credential.
const ACCESS_KEY = ["AKIA", "QYLPMN5HHHFPZAM2"].join("");
const GITHUB_TOKEN = ["gh", "p_wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"].join("");

let h: Harness;
let api: ReviewedApi;
let base: string;
let browser: Browser;
let workers: WorkerProcess | undefined;
let env: Record<string, string>;
let adminName: string;
const workerLogs = createLogCapture();
let delivered: Delivered[];

beforeAll(async () => {
  api = await startReviewedApi("svcctl_hook_ask");
  ({ h, base, delivered } = api);
  // Every queue and the outbox relay, as the single-process `npm start` runs them.
  workers = startWorkerProcess({
    queues: h.queues,
    logger: createLogger({ service: "hook-ask-workers", level: "info", stream: workerLogs.stream }),
    prisma: h.prisma,
    config: h.config,
    now: () => new Date(),
    env: api.env,
    deliverInline: true,
  });
  await h.queues.ready(30_000);
  browser = await launchChromium();

  const admin = h.as();
  await admin
    .put("/v1/templates/permission-asked")
    .send({
      locales: {
        en: { title: "{{ data.title }}", body: "{{ data.body }}\n\nDecide: {{ data.review_url }}" },
      },
    })
    .expect(201);
  await admin
    .put("/v1/rules/tell-reviewers")
    .send({
      event: "svc.approval_requested",
      template: "permission-asked",
      category: "transactional",
      channels: ["hook"],
      importance: "high",
    })
    .expect(201);
  await admin
    .put("/v1/agents/coder")
    .send({ name: "Claude in shop", reviewers: ["ada", "bob"] })
    .expect(201);
  for (const person of ["ada", "bob"])
    await admin
      .put(`/v1/recipients/${person}`)
      .send({ locale: "en", timezone: "UTC", addresses: [{ channel: "hook", value: `${person}-phone` }] })
      .expect(201);
  const agentKey = await h.keyWith(["messages:write", "messages:read"], "coder");
  adminName = "test admin";
  env = { SVC_URL: base, SVC_API_KEY: agentKey };
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await workers?.close();
  await api?.close();
}, 60_000);

interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** When the answer reached stdout (ms since the epoch); null when nothing was printed. */
  answeredAt: number | null;
}

/** `svcctl hook --ask …` as a child process, the payload on stdin; `kill` sends it a signal. */
function hook(payload: object, args: string[], extraEnv: Record<string, string> = env) {
  const child = spawn(process.execPath, ["-r", REGISTER, MAIN, "hook", "--ask", ...args], {
    cwd: EMPTY_CWD,
    env: { PATH: process.env.PATH ?? "", HOME: "/home/ada", ...extraEnv },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let answeredAt: number | null = null;
  child.stdout.on("data", (chunk: Buffer) => {
    answeredAt ??= Date.now();
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(JSON.stringify(payload));
  const done = new Promise<HookRun>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr, answeredAt }));
  });
  return { done, kill: (signal: NodeJS.Signals) => child.kill(signal) };
}

const bash = (command: string, hookName = "PreToolUse", session: string = SESSION) => ({
  ...HOOK_PAYLOADS.claudeCodePreToolUseBash,
  hook_event_name: hookName,
  session_id: session,
  tool_input: { command, description: "As Claude wrote it" },
});

const commandOf = (row: { metadata: unknown }) =>
  (row.metadata as { tool_call?: { tool_input?: { command?: string; file_path?: string } } }).tool_call
    ?.tool_input;

/** The pending request the hook made whose tool input has `field` = `value`. */
function pendingRequest(value: string, field: "command" | "file_path" = "command") {
  return waitFor(
    async () =>
      (await h.prisma.approvalRequest.findMany({ where: { status: "pending" } })).find(
        (row) => commandOf(row)?.[field] === value,
      ),
    { timeoutMs: 30_000, intervalMs: 50, what: `the request for ${value}` },
  );
}

const REVIEW_URL = /(http:\/\/127\.0\.0\.1:\d+\/review\/[A-Za-z0-9_-]{43})/;

/** The review link in the notification delivered to `reviewer` for the request titled `title`. */
async function reviewLink(reviewer: string, title: string, from = 0): Promise<{ url: string; body: string }> {
  const notice = await waitFor(
    async () =>
      delivered.slice(from).find((d) => d.recipient.external_id === reviewer && d.content.title === title),
    { timeoutMs: 30_000, intervalMs: 50, what: `the notification to ${reviewer}` },
  );
  return { url: REVIEW_URL.exec(notice.content.body)![1]!, body: notice.content.body };
}

async function openLink(
  url: string,
): Promise<{ page: Page; status: number | undefined; close: () => Promise<void> }> {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const response = await page.goto(url);
  return { page, status: response?.status(), close: () => context.close() };
}

const output = (run: HookRun) => JSON.parse(run.stdout) as Record<string, unknown>;

it("allowed through the API: PreToolUse's output, answered within a second of the decision", async () => {
  const run = hook(HOOK_PAYLOADS.claudeCodePreToolUseBash, ["--reviewer", "ada"]);
  const row = await pendingRequest("npm run db:migrate -- --env production");
  expect(row).toMatchObject({
    agent_key: "coder",
    title: "claude-code in shop wants to run Bash",
    body:
      "$ npm run db:migrate -- --env production\nApply the pending migrations to the production database\n\n" +
      `Project: shop · Session: ${SESSION}`,
    reviewers: ["ada"],
    importance: "high",
  });
  expect((row.expires_at.getTime() - row.created_at.getTime()) / 1000).toBe(300);
  await new Promise((resolve) => setTimeout(resolve, 1_500)); // the hook is in its waiting read
  await h.as().post(`/v1/approvals/${row.id}/approve`).send({ reason: "backup taken at 09:00" }).expect(200);
  const decidedAt = Date.now();
  const result = await run.done;
  expect(result).toMatchObject({ code: 0, stderr: "" });
  expect(output(result)).toStrictEqual({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      permissionDecisionReason: `Allowed by ${adminName}: backup taken at 09:00`,
    },
  });
  expect(result.answeredAt! - decidedAt).toBeLessThan(1_000);
  writeFileSync(
    path.join(SCREENSHOTS, "hook-ask-latency.json"),
    `${JSON.stringify({ decision_to_hook_output_ms: result.answeredAt! - decidedAt })}\n`,
  );
}, 60_000);

it("denied through the review link in Chromium: the edit's file and diff shown, the comment passed on", async () => {
  const from = delivered.length;
  const run = hook(HOOK_PAYLOADS.claudeCodePreToolUseEdit, ["--reviewer", "ada", "--reviewer", "bob"]);
  await pendingRequest("/home/ada/src/shop/src/checkout/tax.ts", "file_path");
  const title = "claude-code in shop wants to edit src/checkout/tax.ts";
  const { url, body } = await reviewLink("ada", title, from);
  expect(body).toContain("Edit src/checkout/tax.ts\n@@ -1,3 +1,3 @@");

  const { page, status, close } = await openLink(url);
  expect(status).toBe(200);
  await page.getByRole("heading", { level: 1, name: "Approval requested" }).waitFor();
  expect(await page.getByRole("definition").allInnerTexts()).toEqual([
    "Claude in shop (coder)",
    "shop",
    SESSION,
    "Edit",
    "High",
    expect.stringMatching(/^\w+ \d{1,2}, \d{4} at \d{1,2}:\d\d [AP]M UTC \(in 5 minutes\)$/),
  ]);
  const shown = page.getByRole("region", { name: "What will run" });
  expect(await shown.locator("code").first().innerText()).toBe("src/checkout/tax.ts");
  const diff = shown.locator("pre.diff");
  expect(await diff.evaluate((element) => getComputedStyle(element).fontFamily)).toMatch(/monospace/);
  expect(await diff.locator(".del").allInnerTexts()).toEqual(["-  return line.net * line.rate;"]);
  expect(await diff.locator(".add").allInnerTexts()).toEqual([
    "+  return Math.round(line.net * line.rate * 100) / 100;",
  ]);
  // A session grant for an edit names its folder.
  expect(
    await page
      .getByText("Also allows, without asking again until the session ends: Edit(src/checkout/**)")
      .isVisible(),
  ).toBe(true);
  await page.screenshot({ path: path.join(SCREENSHOTS, "review-tool-call-edit.png"), fullPage: true });
  await page.getByLabel("Reason for denying (optional)").fill("Round half-even, as the tax office does");
  await page.getByRole("button", { name: "Deny" }).click();
  await page.getByRole("heading", { level: 1, name: "Decision recorded" }).waitFor();
  await close();

  const result = await run.done;
  expect(result).toMatchObject({ code: 0, stderr: "" });
  expect(output(result)).toStrictEqual({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "Denied by ada: Round half-even, as the tax office does",
    },
  });
}, 90_000);

it("Allow for this session from the link: PermissionRequest's output; the session's next call asks nobody until it ends", async () => {
  const session = "0b5e55e5-1111-4222-8333-944455556666";
  const from = delivered.length;
  const run = hook(bash("npm test -- --coverage", "PermissionRequest", session), ["--reviewer", "ada"]);
  await pendingRequest("npm test -- --coverage");
  const { url } = await reviewLink("ada", "claude-code in shop wants to run Bash", from);
  const { page, close } = await openLink(url);
  const shown = page.getByRole("region", { name: "What will run" });
  const command = shown.locator("pre.command");
  expect(await command.innerText()).toBe("$ npm test -- --coverage");
  expect(await command.evaluate((element) => getComputedStyle(element).fontFamily)).toMatch(/monospace/);
  expect(await page.getByRole("button").allInnerTexts()).toEqual(["Allow", "Allow for this session", "Deny"]);
  expect(await page.locator("#session-hint").innerText()).toBe(
    "Also allows, without asking again until the session ends: Bash(npm test:*)",
  );
  await page.screenshot({ path: path.join(SCREENSHOTS, "review-tool-call-bash.png"), fullPage: true });
  await page.getByRole("button", { name: "Allow for this session" }).click();
  await page.getByRole("heading", { level: 1, name: "Decision recorded" }).waitFor();
  await close();
  const result = await run.done;
  expect(output(result)).toStrictEqual({
    hookSpecificOutput: {
      hookEventName: "PermissionRequest",
      decision: { behavior: "allow", message: "Allowed for this session by ada (Bash(npm test:*))" },
    },
  });

  const requests = await h.prisma.approvalRequest.count();
  const again = await hook(bash("npm test", "PreToolUse", session), ["--reviewer", "ada"]).done;
  expect(output(again)).toStrictEqual({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "allow",
      permissionDecisionReason: "Allowed for this session by ada (Bash(npm test:*))",
    },
  });
  expect(await h.prisma.approvalRequest.count()).toBe(requests); // nobody was asked

  // The session ends (Claude Code's SessionEnd through the same hook): its grants go.
  const ended = await hook({ ...HOOK_PAYLOADS.claudeCodeSessionEnd, session_id: session }, []).done;
  expect(ended).toMatchObject({ code: 0, stdout: "", stderr: "" });
  expect(await h.prisma.sessionGrant.count({ where: { session_id: session } })).toBe(0);
  const asked = await hook(bash("npm test", "PreToolUse", session), ["--reviewer", "ada", "--timeout", "1"])
    .done;
  expect((output(asked).hookSpecificOutput as Record<string, unknown>).permissionDecision).toBe("deny");
  expect(await h.prisma.approvalRequest.count()).toBe(requests + 1);
}, 90_000);

it("nobody decides in time: denied, the request withdrawn, a late tap on the link says Withdrawn (410)", async () => {
  const from = delivered.length;
  const started = Date.now();
  const result = await hook(bash("kubectl delete namespace staging"), ["--reviewer", "ada", "--timeout", "2"])
    .done;
  expect(Date.now() - started).toBeLessThan(8_000);
  expect(result).toMatchObject({ code: 0, stderr: "" });
  expect(output(result)).toStrictEqual({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
      permissionDecisionReason: "No decision from a reviewer within 2 s; denied",
    },
  });
  const [row] = await h.prisma.approvalRequest.findMany({
    where: { status: "withdrawn" },
    orderBy: { created_at: "desc" },
    take: 1,
  });
  expect(commandOf(row!)?.command).toBe("kubectl delete namespace staging");
  // The request outlives a short wait (a minute at least): it is withdrawn, not left to expire.
  expect(row!.expires_at.getTime() - row!.created_at.getTime()).toBe(60_000);

  const { url } = await reviewLink("ada", "claude-code in shop wants to run Bash", from);
  const { page, status, close } = await openLink(url);
  expect(status).toBe(410);
  await page.getByRole("heading", { level: 1, name: "Withdrawn" }).waitFor();
  expect(await page.getByRole("status").innerText()).toMatch(
    /^Withdrawn on \w+ \d{1,2}, \d{4} at \d{1,2}:\d\d [AP]M UTC; there is nothing left to decide\.$/,
  );
  expect(await page.getByRole("button").count()).toBe(0);
  await close();
  const late = await fetch(`${url}/approve`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "decision=approve",
  });
  expect(late.status).toBe(410);
  expect(await late.text()).toContain("<h1>Withdrawn</h1>");
  expect((await h.as().get(`/v1/approvals/${row!.id}`).expect(200)).body).toMatchObject({
    status: "withdrawn",
    decided_by: null,
  });

  const handedBack = await hook(bash("kubectl get pods"), [
    "--reviewer",
    "ada",
    "--timeout",
    "1",
    "--on-timeout",
    "ask",
  ]).done;
  expect(output(handedBack)).toStrictEqual({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "ask",
      permissionDecisionReason: "No decision from a reviewer within 1 s; asking here instead",
    },
  });
}, 60_000);

it("Claude Code stopping the hook (SIGTERM) withdraws its request", async () => {
  const run = hook(bash("make release"), ["--reviewer", "ada"]);
  const row = await pendingRequest("make release");
  run.kill("SIGTERM");
  const result = await run.done;
  expect(result.code).toBe(0);
  expect((await h.prisma.approvalRequest.findUnique({ where: { id: row.id } }))?.status).toBe("withdrawn");
}, 30_000);

describe("local rules ask nobody (svc is not even reachable here)", () => {
  const offline = { SVC_URL: "", SVC_API_KEY: "svc_unused" };
  beforeAll(async () => {
    offline.SVC_URL = `http://127.0.0.1:${await freePort()}`; // nothing listens there
  });
  const rulesFile = path.join(EMPTY_CWD, "settings.json");
  writeFileSync(
    rulesFile,
    JSON.stringify({
      permissions: { allow: ["Read", "Bash(git status)"], deny: ["Bash(git push --force:*)"] },
    }),
  );

  it.each<[string, object, string[], Record<string, unknown>]>([
    [
      "--allow",
      bash("npm run db:migrate -- --env production"),
      ["--allow", "Bash(npm run db:migrate:*)"],
      {
        permissionDecision: "allow",
        permissionDecisionReason: "Allowed by the local rule Bash(npm run db:migrate:*)",
      },
    ],
    [
      "--deny wins over --allow",
      bash("rm -rf /"),
      ["--allow", "Bash", "--deny", "Bash(rm:*)"],
      { permissionDecision: "deny", permissionDecisionReason: "Denied by the local rule Bash(rm:*)" },
    ],
    [
      "a rules file in Claude Code's settings shape",
      bash("git push --force origin main"),
      ["--rules", "settings.json", "--allow", "Bash(git push:*)"],
      {
        permissionDecision: "deny",
        permissionDecisionReason: "Denied by the local rule Bash(git push --force:*)",
      },
    ],
    [
      "Edit(src/**) from the working directory",
      HOOK_PAYLOADS.claudeCodePreToolUseEdit,
      ["--allow", "Edit(src/**)"],
      { permissionDecision: "allow", permissionDecisionReason: "Allowed by the local rule Edit(src/**)" },
    ],
    [
      "~/ is the person's home",
      {
        ...HOOK_PAYLOADS.claudeCodePreToolUseEdit,
        tool_name: "Read",
        tool_input: { file_path: "/home/ada/.aws/credentials" },
      },
      ["--allow", "Read", "--deny", "Read(~/.aws/**)"],
      { permissionDecision: "deny", permissionDecisionReason: "Denied by the local rule Read(~/.aws/**)" },
    ],
  ])(
    "%s",
    async (_label, payload, args, expected) => {
      const before = await h.prisma.approvalRequest.count();
      const result = await hook(payload, args, offline).done;
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(output(result)).toStrictEqual({
        hookSpecificOutput: { hookEventName: "PreToolUse", ...expected },
      });
      expect(await h.prisma.approvalRequest.count()).toBe(before);
    },
    30_000,
  );

  it("PermissionRequest answers in its own shape", async () => {
    const result = await hook(
      HOOK_PAYLOADS.claudeCodePermissionRequestBash,
      ["--deny", "Bash(git push:*)"],
      offline,
    ).done;
    expect(output(result)).toStrictEqual({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "deny", message: "Denied by the local rule Bash(git push:*)" },
      },
    });
  }, 30_000);

  it("svc unreachable: --on-error ask (default) hands back to Claude Code, --on-error deny denies", async () => {
    const asked = await hook(
      bash("npm publish"),
      ["--reviewer", "ada", "--allow", "Bash(npm test:*)"],
      offline,
    ).done;
    expect(asked.code).toBe(0);
    expect(asked.stderr).toBe(`svcctl hook: cannot reach svc at ${offline.SVC_URL} (ECONNREFUSED)\n`);
    expect(output(asked)).toStrictEqual({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        permissionDecisionReason: `svc could not be asked (cannot reach svc at ${offline.SVC_URL} (ECONNREFUSED)); asking here instead`,
      },
    });
    const denied = await hook(bash("npm publish"), ["--reviewer", "ada", "--on-error", "deny"], offline).done;
    expect((output(denied).hookSpecificOutput as Record<string, unknown>).permissionDecision).toBe("deny");
    // A PermissionRequest handed back says nothing: Claude Code shows its own dialog.
    const quiet = await hook(HOOK_PAYLOADS.claudeCodePermissionRequestBash, ["--reviewer", "ada"], offline)
      .done;
    expect(quiet.stdout).toBe("");
    expect(quiet.code).toBe(0);
  }, 30_000);

  it("a bad rule or no reviewer: one line on stderr and --on-error's answer", async () => {
    const badRule = await hook(bash("ls"), ["--allow", "Bash("], offline).done;
    expect(badRule.stderr).toBe(
      "svcctl hook: not a permission rule: 'Bash(' (expected Tool or Tool(specifier))\n",
    );
    expect((output(badRule).hookSpecificOutput as Record<string, unknown>).permissionDecision).toBe("ask");
    const nobody = await hook(bash("ls"), [], offline).done;
    expect(nobody.stderr).toBe("svcctl hook: no reviewer: pass --reviewer or set SVC_RECIPIENT\n");
  }, 30_000);
});

it("a secret in the tool input is masked in the request, the notification and the review page, and stored nowhere", async () => {
  const from = delivered.length;
  const command = `AWS_ACCESS_KEY_ID=${ACCESS_KEY} GITHUB_TOKEN=${GITHUB_TOKEN} ./deploy.sh --prod`;
  const masked =
    "AWS_ACCESS_KEY_ID=[secret: AWS access key] GITHUB_TOKEN=[secret: GitHub token] ./deploy.sh --prod";
  const run = hook(bash(command), ["--reviewer", "ada"]);
  const row = await pendingRequest(masked);
  expect(row.body.startsWith(`$ ${masked}\n`)).toBe(true);
  const read = await h.as().get(`/v1/approvals/${row.id}`).expect(200);
  expect(read.body.metadata.tool_call.tool_input.command).toBe(masked);

  const { url, body } = await reviewLink("ada", "claude-code in shop wants to run Bash", from);
  expect(body).toContain(`$ ${masked}`);
  const { page, close } = await openLink(url);
  expect(await page.locator("pre.command").innerText()).toBe(`$ ${masked}`);
  const html = await page.content();
  await page.getByRole("button", { name: "Deny" }).click();
  await page.getByRole("heading", { level: 1, name: "Decision recorded" }).waitFor();
  await close();
  expect((await run.done).code).toBe(0);

  const everything = JSON.stringify([read.body, delivered, html, h.logs.entries(), workerLogs.entries()]);
  for (const secret of [ACCESS_KEY, GITHUB_TOKEN]) {
    expect(everything).not.toContain(secret);
    expect(await rowsHolding(h.prisma, secret)).toEqual([]);
  }
  // The scan finds what is there.
  expect(await rowsHolding(h.prisma, "./deploy.sh --prod")).toEqual(
    expect.arrayContaining(["approval_requests.body", "approval_requests.metadata", "events.data"]),
  );
}, 90_000);

// The DOM as the page functions above use it (this project compiles without the DOM library).
declare const getComputedStyle: (element: unknown) => { fontFamily: string };
