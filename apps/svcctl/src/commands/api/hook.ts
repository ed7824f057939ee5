import { Command, InvalidArgumentError, Option } from "commander";
import { HookPayloadError, mapCodingAgentHook, type HookFormat } from "@svc/core";
import { CliError, classifyError } from "../../cli-error";
import { EXIT } from "../../exit-codes";
import type { Session } from "../../session";
import { withExample } from "./api-command";
import { answerToolCall, type AskOptions } from "./hook-ask";

// `svcctl hook` (docs/hooks.md): a coding agent's hook reported as an event. It must never hold
// up or break the agent: everything, reading the payload included, is bounded by --timeout, and
// any failure is one line on stderr and exit 0, unless --strict asks for the exit code.
// `svcctl hook --ask` instead asks a person before a tool call runs (hook-ask.ts).

interface HookCommandOptions {
  format: HookFormat;
  event?: string;
  recipient?: string;
  project?: string;
  agent?: string;
  timeout?: number;
  strict?: boolean;
  ask?: boolean;
  allow: string[];
  deny: string[];
  rules?: string;
  reviewer: string[];
  onTimeout: "deny" | "ask";
  onError: "ask" | "deny";
}

/** Seconds `svcctl hook` gives the service by default: reporting an event, asking a person. */
const DEFAULT_TIMEOUT = { report: 5, ask: 300 } as const;
/** How long `--ask` waits for the payload on stdin. */
const READ_TIMEOUT_MS = 5_000;

const collect = (value: string, previous: string[]) => [...previous, value];

const MAX_PAYLOAD_BYTES = 1024 * 1024;

function parseTimeout(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new InvalidArgumentError("expected seconds, more than 0 and at most 3600.");
  }
  return seconds;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stream) {
    text += typeof chunk === "string" ? chunk : (chunk as Buffer).toString("utf8");
    if (text.length > MAX_PAYLOAD_BYTES)
      throw new CliError(EXIT.usage, "the hook payload is larger than 1 MiB");
  }
  return text;
}

function parsePayload(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(EXIT.usage, `the hook payload on ${where} is not JSON`);
  }
}

async function report(
  s: Session,
  payloadArg: string | undefined,
  options: HookCommandOptions,
  timeoutMs: number,
) {
  const recipient = options.recipient ?? s.io.env.SVC_RECIPIENT;
  if (!recipient) throw new CliError(EXIT.config, "no recipient: set SVC_RECIPIENT or pass --recipient");
  const api = s.api({ timeoutMs });
  let payload: unknown;
  if (payloadArg !== undefined) payload = parsePayload(payloadArg, "the command line");
  else if (s.io.stdin) payload = parsePayload(await readAll(s.io.stdin), "stdin");
  else throw new CliError(EXIT.usage, "no hook payload: pass it as an argument or on stdin");
  let event;
  try {
    event = mapCodingAgentHook(payload, { ...options, recipient });
  } catch (error) {
    if (error instanceof HookPayloadError) throw new CliError(EXIT.usage, error.message);
    throw error;
  }
  await api.call(
    api.client.POST("/v1/events", {
      body: { name: event.name, recipient, data: { ...event.data }, idempotency_key: event.idempotency_key },
    }),
  );
}

export function hookCommand(parent: Command, s: Session): Command {
  const hook = parent
    .command("hook")
    .description("report a coding agent's hook (Claude Code, Codex) as an event; never blocks the agent")
    .argument("[payload]", "the hook's JSON (Codex passes it as the last argument); else read from stdin")
    .addOption(
      new Option("--format <format>", "whose hook: claude-code (JSON on stdin) or codex (JSON argument)")
        .choices(["claude-code", "codex"])
        .default("claude-code"),
    )
    .option("--event <name>", "report under this event name, whatever the hook")
    .option("-r, --recipient <external_id>", "who is told (default: $SVC_RECIPIENT)")
    .option("--project <name>", "data.project (default: the base name of the hook's cwd)")
    .option("--agent <name>", "data.agent (default: claude-code or codex)")
    .option(
      "--timeout <seconds>",
      "give up after this long, reading included (default: 5; with --ask: wait this long for a decision, default 300)",
      parseTimeout,
    )
    .option("--strict", "exit non-zero when the event could not be reported (default: always exit 0)")
    .option("--ask", "ask a person before a tool call (PreToolUse, PermissionRequest) and print the decision")
    .option(
      "--allow <rule>",
      "with --ask: allow what this rule covers without asking (repeatable)",
      collect,
      [],
    )
    .option(
      "--deny <rule>",
      "with --ask: deny what this rule covers without asking; deny wins (repeatable)",
      collect,
      [],
    )
    .option(
      "--rules <file>",
      "with --ask: a JSON file of rules, {allow: [...], deny: [...]} or Claude Code's settings",
    )
    .option(
      "--reviewer <external_id>",
      "with --ask: who is asked (repeatable; default: $SVC_RECIPIENT)",
      collect,
      [],
    )
    .addOption(
      new Option("--on-timeout <answer>", "with --ask: nobody decided in time")
        .choices(["deny", "ask"])
        .default("deny"),
    )
    .addOption(
      new Option("--on-error <answer>", "with --ask: svc could not be asked")
        .choices(["ask", "deny"])
        .default("ask"),
    )
    .action(async (payloadArg: string | undefined, options: HookCommandOptions) => {
      if (options.ask) return ask(s, payloadArg, options);
      options.timeout ??= DEFAULT_TIMEOUT.report;
      const timeoutMs = Math.round(options.timeout * 1000);
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          // A payload that never ends (stdin left open) must not keep the process alive.
          const stdin = s.io.stdin as (NodeJS.ReadableStream & { destroy?: () => void }) | undefined;
          stdin?.destroy?.();
          reject(new CliError(EXIT.unavailable, `gave up after ${options.timeout} s`));
        }, timeoutMs);
      });
      try {
        await Promise.race([report(s, payloadArg, options, timeoutMs), deadline]);
      } catch (error) {
        const failure = classifyError(error);
        if (options.strict) throw failure;
        s.err(`svcctl hook: event not reported: ${failure.message}`);
      } finally {
        clearTimeout(timer);
      }
    });
  return withExample(
    hook,
    `$ echo '{"hook_event_name":"Stop","session_id":"abc","cwd":"/src/shop"}' | svcctl hook --recipient ada`,
    `$ svcctl hook --format codex --recipient ada '{"type":"agent-turn-complete","thread-id":"t1","cwd":"/src/shop"}'`,
    `$ svcctl hook --ask --reviewer ada --allow 'Bash(npm test:*)' --deny 'Bash(rm:*)' < pre-tool-use.json`,
    "Settings for Claude Code and Codex: docs/hooks.md",
  );
}

/** `--ask`: read the payload (bounded), then answer the tool call; stdout carries only the answer. */
async function ask(s: Session, payloadArg: string | undefined, options: HookCommandOptions): Promise<void> {
  let payload: unknown;
  try {
    if (payloadArg !== undefined) payload = parsePayload(payloadArg, "the command line");
    else if (s.io.stdin) payload = parsePayload(await withDeadline(readAll(s.io.stdin), s), "stdin");
    else throw new CliError(EXIT.usage, "no hook payload: pass it as an argument or on stdin");
  } catch (error) {
    // Nothing on stdout: Claude Code goes on as if there were no hook.
    s.err(`svcctl hook: ${classifyError(error).message}`);
    return;
  }
  const askOptions: AskOptions = {
    allow: options.allow,
    deny: options.deny,
    rules: options.rules,
    reviewer: options.reviewer,
    timeout: options.timeout ?? DEFAULT_TIMEOUT.ask,
    onTimeout: options.onTimeout,
    onError: options.onError,
    project: options.project,
    agent: options.agent,
  };
  try {
    await answerToolCall(s, payload, askOptions);
  } catch (error) {
    s.err(`svcctl hook: ${classifyError(error).message}`);
  }
}

function withDeadline<T>(pending: Promise<T>, s: Session): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const stdin = s.io.stdin as (NodeJS.ReadableStream & { destroy?: () => void }) | undefined;
      stdin?.destroy?.();
      reject(new CliError(EXIT.usage, `no hook payload on stdin within ${READ_TIMEOUT_MS / 1000} s`));
    }, READ_TIMEOUT_MS);
  });
  return Promise.race([pending, deadline]).finally(() => clearTimeout(timer));
}
