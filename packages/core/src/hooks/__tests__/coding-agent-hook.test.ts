import { HOOK_PAYLOADS } from "@svc/testkit";
import { sha256Hex } from "../../access/api-key-secret";
import { canonicalJson } from "../../text/canonical-json";
import {
  baseName,
  HookPayloadError,
  mapCodingAgentHook,
  MESSAGE_MAX,
  type HookOptions,
} from "../coding-agent-hook";

const CLAUDE: HookOptions = { format: "claude-code", recipient: "ada" };
const CODEX: HookOptions = { format: "codex", recipient: "ada" };
const SESSION = "8a0b6f0e-3c2d-4e1f-9a7b-5c6d7e8f9a0b";

describe("mapCodingAgentHook: the real payloads", () => {
  it.each([
    [
      "Claude Code Stop",
      HOOK_PAYLOADS.claudeCodeStop,
      CLAUDE,
      "agent.stop",
      {
        hook: "Stop",
        session_id: SESSION,
        project: "shop",
        agent: "claude-code",
        message:
          "I fixed the failing checkout test: tax is now rounded per line, not per order. All 214 tests pass.",
      },
    ],
    [
      "Claude Code SubagentStop",
      HOOK_PAYLOADS.claudeCodeSubagentStop,
      CLAUDE,
      "agent.stop",
      {
        hook: "SubagentStop",
        session_id: SESSION,
        project: "shop",
        agent: "claude-code",
        message:
          "roundTax is called from three places: src/checkout/cart.ts, src/checkout/invoice.ts and src/admin/refunds.ts.",
      },
    ],
    [
      "Claude Code Notification",
      HOOK_PAYLOADS.claudeCodeNotification,
      CLAUDE,
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
      CLAUDE,
      "agent.session_end",
      {
        hook: "SessionEnd",
        session_id: SESSION,
        project: "shop",
        agent: "claude-code",
        stop_reason: "prompt_input_exit",
      },
    ],
    [
      "Codex agent-turn-complete",
      HOOK_PAYLOADS.codexAgentTurnComplete,
      CODEX,
      "agent.stop",
      {
        hook: "agent-turn-complete",
        session_id: "b5f6c1c2-1111-2222-3333-444455556666",
        project: "example",
        agent: "codex",
        message: "Rename complete and verified `cargo build` succeeds.",
      },
    ],
    [
      "options win over the payload",
      HOOK_PAYLOADS.claudeCodeStop,
      {
        format: "claude-code",
        recipient: "ada",
        event: "build.finished",
        project: "web",
        agent: "ada-laptop",
      },
      "build.finished",
      {
        hook: "Stop",
        session_id: SESSION,
        project: "web",
        agent: "ada-laptop",
        message:
          "I fixed the failing checkout test: tax is now rounded per line, not per order. All 214 tests pass.",
      },
    ],
  ] as const)("%s", (_label, payload, options, name, data) => {
    const event = mapCodingAgentHook(payload, options);
    expect(event.name).toBe(name);
    // Exactly these keys: nothing else of the payload (transcript paths, prompts) is reported.
    expect(event.data).toStrictEqual(data);
    expect(event.idempotency_key).toBe(
      `hook:${sha256Hex(canonicalJson({ recipient: "ada", name, data, payload }))}`,
    );
  });
});

describe("mapCodingAgentHook: edges", () => {
  it("cuts the message to 2,000 characters without splitting a character", () => {
    const long = `${"é".repeat(1999)}😀😀 and more`;
    const event = mapCodingAgentHook(
      { ...HOOK_PAYLOADS.claudeCodeStop, last_assistant_message: long },
      CLAUDE,
    );
    expect(Array.from(event.data.message!)).toHaveLength(MESSAGE_MAX);
    expect(event.data.message).toBe(`${"é".repeat(1999)}😀`);
  });

  it("leaves out message and stop_reason the agent did not send, and keeps null for a missing session or cwd", () => {
    expect(mapCodingAgentHook({ hook_event_name: "Stop" }, CLAUDE)).toMatchObject({
      name: "agent.stop",
      data: { hook: "Stop", session_id: null, project: null, agent: "claude-code" },
    });
    expect(mapCodingAgentHook({ hook_event_name: "SessionEnd", reason: "" }, CLAUDE).data).toStrictEqual({
      hook: "SessionEnd",
      session_id: null,
      project: null,
      agent: "claude-code",
    });
    // A Notification's text is `message`, not the last assistant message.
    expect(
      mapCodingAgentHook({ hook_event_name: "Notification", last_assistant_message: "x" }, CLAUDE).data,
    ).not.toHaveProperty("message");
  });

  it("gives the same key for the same payload in any key order, another for another payload", () => {
    const { hook_event_name, ...rest } = HOOK_PAYLOADS.claudeCodeStop;
    const reordered = { ...rest, hook_event_name };
    const key = mapCodingAgentHook(HOOK_PAYLOADS.claudeCodeStop, CLAUDE).idempotency_key;
    expect(mapCodingAgentHook(reordered, CLAUDE).idempotency_key).toBe(key);
    expect(mapCodingAgentHook(HOOK_PAYLOADS.claudeCodeSubagentStop, CLAUDE).idempotency_key).not.toBe(key);
    expect(key).toMatch(/^hook:[0-9a-f]{64}$/);
    // Reported to someone else, or otherwise, it is another event (not a conflicting repeat).
    const other = (options: Partial<HookOptions>) =>
      mapCodingAgentHook(HOOK_PAYLOADS.claudeCodeStop, { ...CLAUDE, ...options }).idempotency_key;
    expect(
      new Set([key, other({ recipient: "grace" }), other({ project: "web" }), other({ event: "x" })]).size,
    ).toBe(4);
  });

  it.each([
    [null, CLAUDE, "the hook payload is not a JSON object"],
    [["Stop"], CLAUDE, "the hook payload is not a JSON object"],
    [{ session_id: "s" }, CLAUDE, "the hook payload has no 'hook_event_name'"],
    [{ "thread-id": "t" }, CODEX, "the hook payload has no 'type'"],
    [
      { hook_event_name: "PreToolUse" },
      CLAUDE,
      "hook 'PreToolUse' is not reported (known: Stop, SubagentStop, Notification, SessionEnd; or give an event name)",
    ],
    [HOOK_PAYLOADS.claudeCodeStop, CODEX, "the hook payload has no 'type'"],
  ])("%j (%j) is refused: %s", (payload, options, message) => {
    const attempt = () => mapCodingAgentHook(payload, options);
    expect(attempt).toThrow(HookPayloadError);
    expect(attempt).toThrow(message);
  });

  it("reports any hook under a forced event name", () => {
    expect(
      mapCodingAgentHook({ hook_event_name: "PreToolUse" }, { ...CLAUDE, event: "agent.tool" }).name,
    ).toBe("agent.tool");
  });

  it.each([
    ["/home/ada/src/shop", "shop"],
    ["/home/ada/src/shop/", "shop"],
    ["C:\\Users\\ada\\shop", "shop"],
    ["shop", "shop"],
    ["/", null],
  ])("baseName(%j) = %j", (path, expected) => {
    expect(baseName(path)).toBe(expected);
  });
});
