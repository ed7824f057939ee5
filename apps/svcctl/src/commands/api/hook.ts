import { Command, InvalidArgumentError, Option } from "commander";
import { HookPayloadError, mapCodingAgentHook, type HookFormat } from "@svc/core";
import { CliError, classifyError } from "../../cli-error";
import { EXIT } from "../../exit-codes";
import type { Session } from "../../session";
import { withExample } from "./api-command";

// `svcctl hook` (docs/hooks.md): a coding agent's hook reported as an event. It must never hold
// up or break the agent: everything, reading the payload included, is bounded by --timeout, and
// any failure is one line on stderr and exit 0, unless --strict asks for the exit code.

interface HookCommandOptions {
  format: HookFormat;
  event?: string;
  recipient?: string;
  project?: string;
  agent?: string;
  timeout: number;
  strict?: boolean;
}

const MAX_PAYLOAD_BYTES = 1024 * 1024;

function parseTimeout(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 600) {
    throw new InvalidArgumentError("expected seconds, more than 0 and at most 600.");
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
    .option("--timeout <seconds>", "give up after this long, reading included", parseTimeout, 5)
    .option("--strict", "exit non-zero when the event could not be reported (default: always exit 0)")
    .action(async (payloadArg: string | undefined, options: HookCommandOptions) => {
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
    "Settings for Claude Code and Codex: docs/hooks.md",
  );
}
