import path from "node:path";
import { splitBashCommand } from "./bash-command";
import { filePathOf, hostOf } from "./permission-rules";
import { inputText, type ToolCallRecord } from "./tool-call";

// "Allow for this session" (docs/hooks.md "Allow for this session"): the rules a reviewer's tap
// grants for the rest of the agent's session, derived from the tool call alone, so the review page
// can show exactly what the button allows and svc grants nothing the reviewer did not see.
//   Bash: per simple command, `Bash(<program> <subcommand>:*)` when the second word is a
//         subcommand (`npm test`, `git push`), else the command exactly (`rm -rf build`);
//   file tools: their folder, `Edit(src/checkout/**)` or `Read(docs/**)` (`//…` outside the
//         working directory);
//   WebFetch: its domain; any other tool: its name (`mcp__github__create_issue`).
// Null when nothing narrower than the whole tool would do (a complex command, no session).

/** Simple commands a session grant may name at once (Claude Code saves at most 5 per approval too). */
export const MAX_GRANT_RULES = 5;

const SUBCOMMAND = /^[a-z][a-z0-9._:-]*$/;

const EDIT_TOOLS = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"]);
const READ_TOOLS = new Set(["Read", "Grep", "Glob"]);

export function sessionGrantRules(call: ToolCallRecord): string[] | null {
  if (call.session_id === null) return null;
  if (call.tool_name === "Bash") return bashGrant(inputText(call, "command") ?? "");
  const family = EDIT_TOOLS.has(call.tool_name) ? "Edit" : READ_TOOLS.has(call.tool_name) ? "Read" : null;
  if (family) {
    const file = filePathOf(call);
    if (file === null || !path.posix.isAbsolute(file)) return null;
    const folder = call.tool_name === "Grep" || call.tool_name === "Glob" ? file : path.posix.dirname(file);
    return [`${family}(${folderPattern(folder, call.cwd)})`];
  }
  if (call.tool_name === "WebFetch") {
    const host = hostOf(inputText(call, "url"));
    return host ? [`WebFetch(domain:${host})`] : null;
  }
  return [call.tool_name];
}

function bashGrant(command: string): string[] | null {
  const { parts, complex } = splitBashCommand(command);
  if (complex || parts.length === 0) return null;
  const rules = new Set<string>();
  for (const part of parts) {
    const [program = "", second] = part.split(" ");
    if (program.includes("*")) return null;
    if (second !== undefined && SUBCOMMAND.test(second)) rules.add(`Bash(${program} ${second}:*)`);
    // `*` is a wildcard in a rule: a command with a literal one cannot be named exactly.
    else if (part.includes("*")) return null;
    else rules.add(`Bash(${part})`);
  }
  return rules.size <= MAX_GRANT_RULES ? [...rules] : null;
}

/** `src/checkout/**` inside the working directory, `//abs/dir/**` outside it, `**` for the directory itself. */
function folderPattern(folder: string, cwd: string | null): string {
  const normalized = path.posix.normalize(folder);
  if (cwd !== null) {
    const relative = path.posix.relative(cwd, normalized);
    if (relative === "") return "**";
    if (!relative.startsWith("..") && !path.posix.isAbsolute(relative)) return `${relative}/**`;
  }
  return `/${normalized.replace(/\/+$/, "")}/**`;
}
