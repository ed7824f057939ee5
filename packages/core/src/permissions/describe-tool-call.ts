import path from "node:path";
import { structuredPatch } from "diff";
import { filePathOf, hostOf } from "./permission-rules";
import { inputText, type ToolCallRecord } from "./tool-call";

// How a tool call reads to a person (docs/hooks.md "What the reviewer sees"): a title understood at
// a glance ("claude-code in shop wants to run Bash"), the command or the file and what changes in
// it (a short diff) in the body, the session and the tool call itself in `metadata.tool_call`.
// The review page shows the same details from the metadata. Callers mask secrets first.

export const TOOL_CALL_TITLE_MAX = 200;
export const TOOL_CALL_BODY_MAX = 4000;
/** Diff lines a notification's body carries (the review page shows the whole stored diff). */
const BODY_DIFF_LINES = 40;

export type ToolCallDetails =
  | { kind: "command"; command: string; description: string | null }
  | { kind: "edit"; file: string; diff: string }
  | { kind: "write"; file: string; content: string }
  | { kind: "read"; file: string }
  | { kind: "fetch"; url: string; prompt: string | null }
  | { kind: "other"; input: string };

/** A path as the person knows it: relative to the agent's working directory when inside it. */
export function displayPath(file: string, cwd: string | null): string {
  if (cwd === null || !path.posix.isAbsolute(file)) return file;
  const relative = path.posix.relative(cwd, file);
  return relative !== "" && !relative.startsWith("..") ? relative : file;
}

/** A unified diff of `before` → `after` without file headers (hunks only). */
export function shortDiff(before: string, after: string, context = 3): string {
  const patch = structuredPatch("a", "b", before, after, "", "", { context });
  return patch.hunks
    .map((hunk) =>
      [
        `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
        // A snippet's last line seldom ends the file: "\ No newline at end of file" says nothing here.
        ...hunk.lines.filter((line) => !line.startsWith("\\")),
      ].join("\n"),
    )
    .join("\n");
}

const EDIT_TOOLS = new Set(["Edit", "MultiEdit", "NotebookEdit"]);

export function toolCallDetails(call: ToolCallRecord): ToolCallDetails {
  const file = filePathOf(call);
  const shown = file === null ? null : displayPath(file, call.cwd);
  switch (true) {
    case call.tool_name === "Bash":
      return {
        kind: "command",
        command: inputText(call, "command") ?? "",
        description: inputText(call, "description"),
      };
    case EDIT_TOOLS.has(call.tool_name) && shown !== null:
      return { kind: "edit", file: shown!, diff: editDiff(call) };
    case call.tool_name === "Write" && shown !== null:
      return { kind: "write", file: shown!, content: inputText(call, "content") ?? "" };
    case call.tool_name === "Read" && shown !== null:
      return { kind: "read", file: shown! };
    case call.tool_name === "WebFetch" && inputText(call, "url") !== null:
      return { kind: "fetch", url: inputText(call, "url")!, prompt: inputText(call, "prompt") };
    default:
      return { kind: "other", input: JSON.stringify(call.tool_input, null, 2) };
  }
}

function editDiff(call: ToolCallRecord): string {
  const input = call.tool_input;
  if (call.tool_name === "NotebookEdit") return shortDiff("", inputText(call, "new_source") ?? "");
  const edits = call.tool_name === "MultiEdit" && Array.isArray(input.edits) ? input.edits : [input];
  return edits
    .map((edit) => {
      const { old_string: before, new_string: after } = (edit ?? {}) as Record<string, unknown>;
      return shortDiff(typeof before === "string" ? before : "", typeof after === "string" ? after : "");
    })
    .filter((diff) => diff !== "")
    .join("\n");
}

/** At most `max` characters (code points), an ellipsis marking the cut. */
export function cutText(value: string, max: number): string {
  const chars = Array.from(value);
  return chars.length <= max ? value : `${chars.slice(0, max - 1).join("")}…`;
}

const who = (call: ToolCallRecord) => (call.project ? `${call.agent} in ${call.project}` : call.agent);

/** "claude-code in shop wants to run Bash". */
export function toolCallTitle(call: ToolCallRecord): string {
  const details = toolCallDetails(call);
  const what = {
    command: () => `run ${call.tool_name}`,
    edit: () => `edit ${(details as { file: string }).file}`,
    write: () => `write ${(details as { file: string }).file}`,
    read: () => `read ${(details as { file: string }).file}`,
    fetch: () => `fetch ${hostOf((details as { url: string }).url) ?? (details as { url: string }).url}`,
    other: () => `use ${call.tool_name}`,
  }[details.kind]();
  return cutText(`${who(call)} wants to ${what}`, TOOL_CALL_TITLE_MAX);
}

const firstLines = (value: string, count: number) => {
  const lines = value.split("\n");
  return lines.length <= count
    ? value
    : `${lines.slice(0, count).join("\n")}\n… (${lines.length - count} more lines)`;
};

/** The request's body: what will run or change, then where (project, session). */
export function toolCallBody(call: ToolCallRecord): string {
  const details = toolCallDetails(call);
  const what = (() => {
    switch (details.kind) {
      case "command":
        return [`$ ${details.command}`, details.description].filter(Boolean).join("\n");
      case "edit":
        return `${call.tool_name} ${details.file}\n${firstLines(details.diff, BODY_DIFF_LINES)}`;
      case "write":
        return `Write ${details.file}\n${firstLines(details.content, BODY_DIFF_LINES)}`;
      case "read":
        return `Read ${details.file}`;
      case "fetch":
        return [`Fetch ${details.url}`, details.prompt].filter(Boolean).join("\n");
      default:
        return `${call.tool_name} ${details.input}`;
    }
  })();
  const where = [
    call.project ? `Project: ${call.project}` : null,
    call.session_id ? `Session: ${call.session_id}` : null,
  ].filter(Boolean);
  const tail = where.length > 0 ? `\n\n${where.join(" · ")}` : "";
  // The end (project and session) always fits; the tool call is cut to leave room for it.
  return `${cutText(what, TOOL_CALL_BODY_MAX - Array.from(tail).length)}${tail}`;
}
