import { sha256Hex } from "../access/api-key-secret";
import { canonicalJson } from "../text/canonical-json";

// A coding agent's hook as an svc event (docs/hooks.md). One pure mapping shared by `svcctl hook`
// and POST /v1/hooks/claude-code, so the command and the HTTP hook report exactly the same event.

export type HookFormat = "claude-code" | "codex";

export interface HookOptions {
  format: HookFormat;
  /** Who is told; part of the idempotency key, so one hook may be reported to several people. */
  recipient: string;
  /** Forces the event name (`--event`); any hook is then reported under it. */
  event?: string;
  /** `--project`; else the base name of the hook's `cwd`. */
  project?: string;
  /** `--agent`; else `claude-code` or `codex`. */
  agent?: string;
}

export interface HookEventData {
  /** The agent's own name for the hook (`Stop`, `Notification`, `agent-turn-complete`, …). */
  hook: string;
  session_id: string | null;
  project: string | null;
  agent: string;
  /** The notification's text, or the agent's last message; at most MESSAGE_MAX characters. */
  message?: string;
  /** Why a session ended (Claude Code's SessionEnd `reason`). */
  stop_reason?: string;
}

export interface HookEvent {
  name: string;
  data: HookEventData;
  /**
   * The same hook of the same session with the same payload, reported the same way, always gives
   * the same key: a re-run hook reports once (docs/hooks.md "Reported once").
   */
  idempotency_key: string;
}

/** A payload that cannot be reported (not an object, no hook name, a hook svc does not map). */
export class HookPayloadError extends Error {
  override readonly name = "HookPayloadError";
}

export const MESSAGE_MAX = 2000;

/** Claude Code's `hook_event_name`, and Codex's notify `type`, to svc's event names. */
export const HOOK_EVENT_NAMES: Readonly<Record<HookFormat, Readonly<Record<string, string>>>> = {
  "claude-code": {
    Stop: "agent.stop",
    SubagentStop: "agent.stop",
    Notification: "agent.notification",
    SessionEnd: "agent.session_end",
  },
  codex: { "agent-turn-complete": "agent.stop" },
};

// Where each format keeps the hook's name, its session and its working directory.
const FIELDS = {
  "claude-code": { hook: "hook_event_name", session: "session_id", cwd: "cwd" },
  codex: { hook: "type", session: "thread-id", cwd: "cwd" },
} as const;

const text = (value: unknown): string | null =>
  typeof value === "string" && value.length > 0 ? value : null;

/** At most `max` characters (code points: an emoji is never cut in half). */
function cut(value: string, max: number): string {
  const chars = Array.from(value);
  return chars.length <= max ? value : chars.slice(0, max).join("");
}

/** The last segment of a POSIX or Windows path (`/home/ada/shop/` → `shop`). */
export function baseName(path: string): string | null {
  const segments = path.split(/[\\/]+/).filter(Boolean);
  return segments.at(-1) ?? null;
}

function messageOf(format: HookFormat, hook: string, payload: Record<string, unknown>): string | null {
  if (format === "codex") return text(payload["last-assistant-message"]);
  if (hook === "Notification") return text(payload.message);
  return text(payload.last_assistant_message);
}

/** Maps one hook payload to the event svc reports; throws HookPayloadError when it cannot. */
export function mapCodingAgentHook(payload: unknown, options: HookOptions): HookEvent {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
    throw new HookPayloadError("the hook payload is not a JSON object");
  }
  const body = payload as Record<string, unknown>;
  const fields = FIELDS[options.format];
  const hook = text(body[fields.hook]);
  if (hook === null) throw new HookPayloadError(`the hook payload has no '${fields.hook}'`);
  const name = options.event ?? HOOK_EVENT_NAMES[options.format][hook];
  if (name === undefined) {
    const known = Object.keys(HOOK_EVENT_NAMES[options.format]).join(", ");
    throw new HookPayloadError(`hook '${hook}' is not reported (known: ${known}; or give an event name)`);
  }
  const cwd = text(body[fields.cwd]);
  const data: HookEventData = {
    hook,
    session_id: text(body[fields.session]),
    project: options.project ?? (cwd === null ? null : baseName(cwd)),
    agent: options.agent ?? options.format,
  };
  const message = messageOf(options.format, hook, body);
  if (message !== null) data.message = cut(message, MESSAGE_MAX);
  const reason = options.format === "claude-code" && hook === "SessionEnd" ? text(body.reason) : null;
  if (reason !== null) data.stop_reason = reason;
  // The session and the hook are in `data`; the options (name, project, agent, recipient) too, so
  // the same payload reported otherwise is another event, never a conflicting repeat.
  const digest = sha256Hex(canonicalJson({ recipient: options.recipient, name, data, payload: body }));
  return { name, data, idempotency_key: `hook:${digest}` };
}
