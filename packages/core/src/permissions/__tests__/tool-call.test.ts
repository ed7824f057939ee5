import { HOOK_PAYLOADS } from "@svc/testkit";
import { HookPayloadError } from "../../hooks/coding-agent-hook";
import { shortDiff, toolCallBody, toolCallDetails, toolCallTitle } from "../describe-tool-call";
import { fitToolCall } from "../fit-tool-call";
import { permissionHookOutput, ruleVerdict, timeoutVerdict, verdictOfApproval } from "../hook-output";
import { sessionGrantRules } from "../session-grant";
import { parseToolCall, toolCallOfMetadata, type ToolCallRecord } from "../tool-call";

const SESSION = "8a0b6f0e-3c2d-4e1f-9a7b-5c6d7e8f9a0b";
const CWD = "/home/ada/src/shop";
const bashCall = parseToolCall(HOOK_PAYLOADS.claudeCodePreToolUseBash);
const editCall = parseToolCall(HOOK_PAYLOADS.claudeCodePreToolUseEdit);
const withInput = (call: ToolCallRecord, tool_name: string, tool_input: Record<string, unknown>) => ({
  ...call,
  tool_name,
  tool_input,
});

describe("parseToolCall", () => {
  it("reads Claude Code's PreToolUse input", () => {
    expect(bashCall).toStrictEqual({
      hook: "PreToolUse",
      tool_name: "Bash",
      tool_input: {
        command: "npm run db:migrate -- --env production",
        description: "Apply the pending migrations to the production database",
      },
      tool_use_id: "toolu_01ABCdefGHIjklMNOpqrSTUv",
      session_id: SESSION,
      cwd: CWD,
      project: "shop",
      agent: "claude-code",
      permission_mode: "default",
    });
  });

  it("reads PermissionRequest (no tool_use_id), with --project and --agent", () => {
    expect(
      parseToolCall(HOOK_PAYLOADS.claudeCodePermissionRequestBash, { project: "web shop", agent: "claude" }),
    ).toMatchObject({
      hook: "PermissionRequest",
      tool_name: "Bash",
      tool_input: { command: "git push origin main" },
      tool_use_id: null,
      project: "web shop",
      agent: "claude",
    });
  });

  it.each([
    [[], "the hook payload is not a JSON object"],
    [{ hook_event_name: "Stop" }, "asking a person needs a PreToolUse or PermissionRequest hook, not 'Stop'"],
    [{}, "asking a person needs a PreToolUse or PermissionRequest hook, not no 'hook_event_name'"],
    [{ hook_event_name: "PreToolUse" }, "the PreToolUse payload has no 'tool_name'"],
    [
      { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: "ls" },
      "the PreToolUse payload's 'tool_input' is not an object",
    ],
    [
      {
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { a: JSON.parse("[".repeat(40) + "]".repeat(40)) },
      },
      "the PreToolUse payload's 'tool_input' nests deeper than 32 levels",
    ],
  ])("refuses %j", (payload, message) => {
    expect(() => parseToolCall(payload)).toThrow(new HookPayloadError(message));
  });

  it("finds the call again in an approval request's metadata, and nothing in other metadata", () => {
    expect(toolCallOfMetadata({ tool_call: bashCall, order: 1 })).toStrictEqual(bashCall);
    expect(toolCallOfMetadata({ order: "A-1001" })).toBeNull();
    expect(toolCallOfMetadata({ tool_call: { ...bashCall, hook: "Stop" } })).toBeNull();
    expect(toolCallOfMetadata(null)).toBeNull();
  });
});

describe("what the reviewer reads", () => {
  it("a command: the title at a glance, the command and where in the body", () => {
    expect(toolCallTitle(bashCall)).toBe("claude-code in shop wants to run Bash");
    expect(toolCallBody(bashCall)).toBe(
      "$ npm run db:migrate -- --env production\n" +
        "Apply the pending migrations to the production database\n\n" +
        `Project: shop · Session: ${SESSION}`,
    );
  });

  it("an edit: the file relative to the project and a short diff", () => {
    expect(toolCallTitle(editCall)).toBe("claude-code in shop wants to edit src/checkout/tax.ts");
    expect(toolCallDetails(editCall)).toEqual({
      kind: "edit",
      file: "src/checkout/tax.ts",
      diff:
        "@@ -1,3 +1,3 @@\n" +
        " export function lineTax(line: Line): number {\n" +
        "-  return line.net * line.rate;\n" +
        "+  return Math.round(line.net * line.rate * 100) / 100;\n" +
        " }",
    });
    expect(toolCallBody(editCall)).toBe(
      `Edit src/checkout/tax.ts\n${(toolCallDetails(editCall) as { diff: string }).diff}\n\nProject: shop · Session: ${SESSION}`,
    );
  });

  it.each([
    [
      "Write",
      { file_path: `${CWD}/src/new.ts`, content: "a\nb" },
      "claude-code in shop wants to write src/new.ts",
    ],
    ["Read", { file_path: "/etc/hosts" }, "claude-code in shop wants to read /etc/hosts"],
    ["WebFetch", { url: "https://docs.rs/x", prompt: "p" }, "claude-code in shop wants to fetch docs.rs"],
    [
      "mcp__github__create_issue",
      { title: "x" },
      "claude-code in shop wants to use mcp__github__create_issue",
    ],
  ])("%s", (tool, input, title) => {
    expect(toolCallTitle(withInput(bashCall, tool, input))).toBe(title);
  });

  it("MultiEdit diffs every edit; without a project the agent alone", () => {
    const multi = {
      ...withInput(editCall, "MultiEdit", {
        file_path: `${CWD}/a.ts`,
        edits: [
          { old_string: "x", new_string: "y" },
          { old_string: "1", new_string: "2" },
        ],
      }),
      project: null,
    };
    expect(toolCallTitle(multi)).toBe("claude-code wants to edit a.ts");
    expect((toolCallDetails(multi) as { diff: string }).diff).toBe(
      "@@ -1,1 +1,1 @@\n-x\n+y\n@@ -1,1 +1,1 @@\n-1\n+2",
    );
  });

  it("a long command is cut, the project and session stay", () => {
    const long = withInput(bashCall, "Bash", { command: "echo " + "x".repeat(5000) });
    const body = toolCallBody(long);
    expect(Array.from(body)).toHaveLength(4000);
    expect(body.endsWith(`…\n\nProject: shop · Session: ${SESSION}`)).toBe(true);
    expect(shortDiff("same", "same")).toBe("");
  });
});

describe("sessionGrantRules", () => {
  it.each<[string, Record<string, unknown>, string[] | null]>([
    ["Bash", { command: "npm test -- --watch" }, ["Bash(npm test:*)"]],
    ["Bash", { command: "git push origin main && git status" }, ["Bash(git push:*)", "Bash(git status:*)"]],
    ["Bash", { command: "rm -rf build" }, ["Bash(rm -rf build)"]],
    ["Bash", { command: "ls" }, ["Bash(ls)"]],
    ["Bash", { command: "rm *.log" }, null],
    ["Bash", { command: "echo $(id)" }, null],
    ["Bash", { command: "a x; b x; c x; d x; e x; f x" }, null],
    ["Edit", { file_path: `${CWD}/src/checkout/tax.ts` }, ["Edit(src/checkout/**)"]],
    ["Write", { file_path: `${CWD}/README.md` }, ["Edit(**)"]],
    ["Edit", { file_path: "/etc/hosts" }, ["Edit(//etc/**)"]],
    ["Read", { file_path: `${CWD}/docs/a.md` }, ["Read(docs/**)"]],
    ["Grep", { pattern: "x" }, ["Read(**)"]],
    ["WebFetch", { url: "https://Docs.rs/x" }, ["WebFetch(domain:docs.rs)"]],
    ["mcp__github__create_issue", {}, ["mcp__github__create_issue"]],
  ])("%s %j", (tool, input, expected) => {
    expect(sessionGrantRules(withInput(bashCall, tool, input))).toEqual(expected);
  });

  it("needs a session", () => {
    expect(sessionGrantRules({ ...bashCall, session_id: null })).toBeNull();
  });
});

describe("Claude Code's hook output", () => {
  it.each([
    [
      "PreToolUse",
      { decision: "allow", reason: "Allowed by ada" },
      {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "allow",
          permissionDecisionReason: "Allowed by ada",
        },
      },
    ],
    [
      "PreToolUse",
      { decision: "ask", reason: "No decision" },
      {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "ask",
          permissionDecisionReason: "No decision",
        },
      },
    ],
    [
      "PermissionRequest",
      { decision: "deny", reason: "Denied by ada: not on Fridays" },
      {
        hookSpecificOutput: {
          hookEventName: "PermissionRequest",
          decision: { behavior: "deny", message: "Denied by ada: not on Fridays" },
        },
      },
    ],
    ["PermissionRequest", { decision: "ask", reason: "No decision" }, null],
  ] as const)("%s %j", (hook, verdict, output) => {
    expect(permissionHookOutput(hook, verdict)).toStrictEqual(output);
  });

  it.each([
    [
      { status: "approved", decided_by: "link:ada", comment: null },
      { decision: "allow", reason: "Allowed by ada" },
    ],
    [
      { status: "approved", decided_by: "ops console", comment: " fine " },
      { decision: "allow", reason: "Allowed by ops console: fine" },
    ],
    [
      {
        status: "approved",
        decided_by: "link:ada",
        comment: null,
        session_grant: { rules: ["Bash(npm test:*)"] },
      },
      { decision: "allow", reason: "Allowed for this session by ada (Bash(npm test:*))" },
    ],
    [
      { status: "rejected", decided_by: "link:ada", comment: "use the staging database" },
      { decision: "deny", reason: "Denied by ada: use the staging database" },
    ],
    [
      { status: "pending", decided_by: null, comment: null },
      { decision: "deny", reason: "No decision from a reviewer within 300 s; denied" },
    ],
    [
      { status: "withdrawn", decided_by: null, comment: null },
      { decision: "deny", reason: "No decision from a reviewer within 300 s; denied" },
    ],
  ])("verdict of %j", (approval, verdict) => {
    expect(verdictOfApproval(approval, { onTimeout: "deny", timeoutSeconds: 300 })).toEqual(verdict);
  });

  it("asks on timeout when told so; rules say which", () => {
    expect(timeoutVerdict({ onTimeout: "ask", timeoutSeconds: 5 })).toEqual({
      decision: "ask",
      reason: "No decision from a reviewer within 5 s; asking here instead",
    });
    expect(ruleVerdict("deny", ["Bash(rm:*)"])).toEqual({
      decision: "deny",
      reason: "Denied by the local rule Bash(rm:*)",
    });
    expect(ruleVerdict("allow", ["Bash(a:*)", "Bash(b)"])).toEqual({
      decision: "allow",
      reason: "Allowed by the local rules Bash(a:*), Bash(b)",
    });
    expect(ruleVerdict("allow", ["Bash(npm test:*)"], "link:ada")).toEqual({
      decision: "allow",
      reason: "Allowed for this session by ada (Bash(npm test:*))",
    });
  });
});

describe("fitToolCall", () => {
  it("keeps a call that fits, cuts a large one until it does", () => {
    expect(fitToolCall(bashCall, 16 * 1024)).toBe(bashCall);
    const big = withInput(editCall, "Write", { file_path: `${CWD}/big.txt`, content: "é".repeat(50_000) });
    const fitted = fitToolCall(big, 16 * 1024);
    expect(fitted.truncated).toBe(true);
    expect(new TextEncoder().encode(JSON.stringify({ tool_call: fitted })).length).toBeLessThanOrEqual(
      16 * 1024,
    );
    expect(fitted.tool_input.file_path).toBe(`${CWD}/big.txt`);
    expect((fitted.tool_input.content as string).endsWith("…")).toBe(true);
  });
});
