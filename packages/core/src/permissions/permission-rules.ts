import path from "node:path";
import ignore from "ignore";
import { splitBashCommand } from "./bash-command";
import { inputText, type ToolCallRecord } from "./tool-call";

// Local permission rules of `svcctl hook --ask` and the "Allow for this session" grants (docs/hooks.md
// "Rules"), in Claude Code's own rule syntax: `Tool` or `Tool(specifier)`. `Bash(npm test:*)`
// (prefix, word boundary), `Bash(git * main)` (wildcards), `Read`, `Edit(src/**)` (gitignore
// patterns, read from the working directory; `/x` from the project root, `~/x` from home, `//x`
// absolute), `WebFetch(domain:example.com)`, `mcp__server__tool`, `mcp__server` or
// `mcp__server__*` (every tool of a server). Deny wins over allow.

export interface PermissionRule {
  /** The rule as written. */
  text: string;
  tool: string;
  /** What is inside the parentheses; null for a bare tool name. */
  specifier: string | null;
}

export class PermissionRuleError extends Error {
  override readonly name = "PermissionRuleError";
}

const RULE = /^([A-Za-z_][A-Za-z0-9_-]*(?:__\*)?)(?:\((.*)\))?$/s;

export function parsePermissionRule(text: string): PermissionRule {
  const trimmed = text.trim();
  const match = RULE.exec(trimmed);
  if (!match)
    throw new PermissionRuleError(`not a permission rule: '${text}' (expected Tool or Tool(specifier))`);
  const [, tool, specifier] = match as unknown as [string, string, string | undefined];
  if (specifier !== undefined && specifier.trim() === "")
    throw new PermissionRuleError(`empty parentheses in '${text}': write '${tool}' for every call`);
  if (tool.startsWith("mcp__") && specifier !== undefined)
    throw new PermissionRuleError(`'${text}': MCP rules take no parentheses (mcp__server__tool)`);
  const normalized = specifier === undefined || specifier.trim() === "*" ? null : specifier.trim();
  return { text: trimmed, tool, specifier: normalized };
}

/** Parses every rule; the error names the first bad one. */
export const parsePermissionRules = (texts: readonly string[]): PermissionRule[] =>
  texts.map(parsePermissionRule);

export interface RuleContext {
  /** The person's home directory, for `~/` patterns (unknown to svc itself: such rules never match there). */
  home?: string | null;
}

// Which tools a file rule covers (Claude Code applies Read rules to Grep and Glob too, and Edit
// rules to every tool that changes files).
const FILE_RULE_TOOLS: Record<string, readonly string[]> = {
  Read: ["Read", "Grep", "Glob"],
  Edit: ["Edit", "MultiEdit", "Write", "NotebookEdit"],
  Write: ["Write"],
};

/** The file a file tool reads or changes (Grep and Glob without a path: the working directory). */
export function filePathOf(call: ToolCallRecord): string | null {
  const given = inputText(call, "file_path") ?? inputText(call, "notebook_path") ?? inputText(call, "path");
  if (given !== null)
    return path.posix.isAbsolute(given) || call.cwd === null ? given : path.posix.join(call.cwd, given);
  return call.tool_name === "Grep" || call.tool_name === "Glob" ? call.cwd : null;
}

/** `mcp__github__create_issue` → `github`. */
const mcpServerOf = (tool: string): string | null =>
  tool.startsWith("mcp__") ? (tool.split("__")[1] ?? null) : null;

/** A Bash specifier as a regular expression over one simple command (words single-spaced). */
export function bashPattern(specifier: string): RegExp {
  let pattern = specifier.replace(/\s+/g, " ").trim();
  // Claude Code's older `prefix:*` means `prefix *`.
  if (pattern.endsWith(":*")) pattern = `${pattern.slice(0, -2)} *`;
  const escape = (part: string) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  let source: string;
  if (pattern.endsWith(" *")) {
    // `npm test *`: `npm test` itself or followed by more words, never `npm tests`.
    const head = pattern.slice(0, -2);
    source = `${head.split("*").map(escape).join(".*")}(?: .*)?`;
  } else {
    source = pattern.split("*").map(escape).join(".*");
  }
  return new RegExp(`^${source}$`, "s");
}

function fileRuleMatches(
  specifier: string,
  file: string,
  call: ToolCallRecord,
  context: RuleContext,
): boolean {
  let base: string | null;
  let pattern: string;
  if (specifier.startsWith("//")) {
    base = "/";
    pattern = specifier.slice(2);
  } else if (specifier.startsWith("~/")) {
    base = context.home ?? null;
    pattern = specifier.slice(2);
  } else if (specifier.startsWith("/")) {
    // The project root; svc knows the agent's working directory, which is where it runs.
    base = call.cwd;
    pattern = specifier;
  } else {
    base = call.cwd;
    pattern = specifier.replace(/^\.\//, "");
  }
  if (base === null || !path.posix.isAbsolute(file)) return false;
  const relative = path.posix.relative(base, path.posix.normalize(file));
  if (relative === "" || relative.startsWith("..") || path.posix.isAbsolute(relative)) return false;
  return ignore().add(pattern).ignores(relative);
}

export function hostOf(url: string | null): string | null {
  if (url === null) return null;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** A Bash rule's pattern against one simple command. */
const bashRuleMatches = (rule: PermissionRule, part: string) =>
  rule.specifier === null || bashPattern(rule.specifier).test(part);

/** Whether a rule that is not about Bash covers the call. */
function coversCall(rule: PermissionRule, call: ToolCallRecord, context: RuleContext): boolean {
  if (rule.tool.startsWith("mcp__")) {
    const [, server, tool] = rule.tool.split("__");
    if (tool === undefined || tool === "*") return mcpServerOf(call.tool_name) === server;
    return call.tool_name === rule.tool;
  }
  const fileTools = FILE_RULE_TOOLS[rule.tool];
  if (fileTools) {
    if (!fileTools.includes(call.tool_name)) return false;
    if (rule.specifier === null) return true;
    const file = filePathOf(call);
    return file !== null && fileRuleMatches(rule.specifier, file, call, context);
  }
  if (rule.tool !== call.tool_name) return false;
  if (rule.specifier === null) return true;
  if (rule.tool === "WebFetch" && rule.specifier.startsWith("domain:"))
    return hostOf(inputText(call, "url")) === rule.specifier.slice("domain:".length).trim().toLowerCase();
  // A specifier on a tool these rules do not know never matches (Claude Code's own settings still apply it).
  return false;
}

export interface RuleSet {
  allow: readonly PermissionRule[];
  deny: readonly PermissionRule[];
}

/** What the rules decide on their own: deny wins; null when no rule decides (a person is asked). */
export type RuleDecision = { decision: "allow" | "deny"; rules: string[] } | null;

export function decideByRules(rules: RuleSet, call: ToolCallRecord, context: RuleContext = {}): RuleDecision {
  if (call.tool_name === "Bash") return decideBash(rules, inputText(call, "command") ?? "");
  const deny = rules.deny.find((rule) => rule.tool !== "Bash" && coversCall(rule, call, context));
  if (deny) return { decision: "deny", rules: [deny.text] };
  const allow = rules.allow.find((rule) => rule.tool !== "Bash" && coversCall(rule, call, context));
  return allow ? { decision: "allow", rules: [allow.text] } : null;
}

function decideBash(rules: RuleSet, command: string): RuleDecision {
  const { parts, complex } = splitBashCommand(command);
  const whole = command.replace(/\s+/g, " ").trim();
  // Deny: any simple command (or the whole line, for patterns spanning operators) it matches.
  const deny = rules.deny.find(
    (rule) => rule.tool === "Bash" && [whole, ...parts].some((part) => bashRuleMatches(rule, part)),
  );
  if (deny) return { decision: "deny", rules: [deny.text] };
  const bashAllows = rules.allow.filter((rule) => rule.tool === "Bash");
  const everything = bashAllows.find((rule) => rule.specifier === null);
  if (everything) return { decision: "allow", rules: [everything.text] };
  if (complex || parts.length === 0) return null;
  const used: string[] = [];
  for (const part of parts) {
    const rule = bashAllows.find((candidate) => bashRuleMatches(candidate, part));
    if (!rule) return null;
    if (!used.includes(rule.text)) used.push(rule.text);
  }
  return { decision: "allow", rules: used };
}
