import { baseName, HookPayloadError } from "../hooks/coding-agent-hook";

// A coding agent's tool call waiting for permission (docs/hooks.md "Asking a person"): Claude
// Code's `PreToolUse` or `PermissionRequest` hook input, in the one shape svc stores in an approval
// request's `metadata.tool_call`, matches rules against and shows on the review page.

export const PERMISSION_HOOKS = ["PreToolUse", "PermissionRequest"] as const;
export type PermissionHook = (typeof PERMISSION_HOOKS)[number];

export interface ToolCallRecord {
  /** The hook that asked: its output shape depends on it. */
  hook: PermissionHook;
  /** `Bash`, `Edit`, `Write`, `Read`, `WebFetch`, `mcp__server__tool`, … */
  tool_name: string;
  /** The tool's arguments, as the agent wrote them (secrets masked before svc stores them). */
  tool_input: Record<string, unknown>;
  tool_use_id: string | null;
  session_id: string | null;
  /** The agent's working directory; relative paths and rules are read from it. */
  cwd: string | null;
  /** `--project`, else the base name of `cwd`. */
  project: string | null;
  /** `--agent`, else `claude-code`. */
  agent: string;
  permission_mode: string | null;
  /** Some text of `tool_input` was cut to fit the request's metadata. */
  truncated?: boolean;
}

export interface ToolCallOptions {
  project?: string;
  agent?: string;
}

const text = (value: unknown): string | null =>
  typeof value === "string" && value.length > 0 ? value : null;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** How deep a tool input may nest (Claude Code's tools nest two or three levels). */
export const MAX_INPUT_DEPTH = 32;

/** Whether `value` nests deeper than `max` levels of objects and arrays (iterative: any depth is safe). */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== "object") continue;
    if (depth >= max) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

export const isPermissionHook = (name: unknown): name is PermissionHook =>
  typeof name === "string" && (PERMISSION_HOOKS as readonly string[]).includes(name);

/** Reads a PreToolUse or PermissionRequest input; throws HookPayloadError for anything else. */
export function parseToolCall(payload: unknown, options: ToolCallOptions = {}): ToolCallRecord {
  if (!isObject(payload)) throw new HookPayloadError("the hook payload is not a JSON object");
  const hook = payload.hook_event_name;
  if (!isPermissionHook(hook)) {
    const name = typeof hook === "string" ? `'${hook}'` : "no 'hook_event_name'";
    throw new HookPayloadError(`asking a person needs a PreToolUse or PermissionRequest hook, not ${name}`);
  }
  const toolName = text(payload.tool_name);
  if (toolName === null) throw new HookPayloadError(`the ${hook} payload has no 'tool_name'`);
  const input = payload.tool_input ?? {};
  if (!isObject(input)) throw new HookPayloadError(`the ${hook} payload's 'tool_input' is not an object`);
  if (nestsDeeperThan(input, MAX_INPUT_DEPTH))
    throw new HookPayloadError(
      `the ${hook} payload's 'tool_input' nests deeper than ${MAX_INPUT_DEPTH} levels`,
    );
  const cwd = text(payload.cwd);
  return {
    hook,
    tool_name: toolName,
    tool_input: input,
    tool_use_id: text(payload.tool_use_id),
    session_id: text(payload.session_id),
    cwd,
    project: options.project ?? (cwd === null ? null : baseName(cwd)),
    agent: options.agent ?? "claude-code",
    permission_mode: text(payload.permission_mode),
  };
}

/** The tool call stored in an approval request's metadata, or null when it holds none. */
export function toolCallOfMetadata(metadata: unknown): ToolCallRecord | null {
  if (!isObject(metadata)) return null;
  const call = metadata.tool_call;
  if (!isObject(call) || !isPermissionHook(call.hook) || text(call.tool_name) === null) return null;
  if (!isObject(call.tool_input)) return null;
  const orNull = (value: unknown) => (typeof value === "string" ? value : null);
  return {
    hook: call.hook,
    tool_name: call.tool_name as string,
    tool_input: call.tool_input,
    tool_use_id: orNull(call.tool_use_id),
    session_id: orNull(call.session_id),
    cwd: orNull(call.cwd),
    project: orNull(call.project),
    agent: orNull(call.agent) ?? "claude-code",
    permission_mode: orNull(call.permission_mode),
    ...(call.truncated === true ? { truncated: true } : {}),
  };
}

/** A string argument of the tool call, when it is one. */
export const inputText = (call: Pick<ToolCallRecord, "tool_input">, key: string): string | null =>
  text(call.tool_input[key]);
