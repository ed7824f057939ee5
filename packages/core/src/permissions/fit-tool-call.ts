import type { ToolCallRecord } from "./tool-call";

// An approval request's metadata holds at most 16 KB of JSON (docs/approvals.md): a tool call
// whose input is larger (a Write of a big file) keeps every argument, each text cut shorter and
// shorter until it fits, and says so (`truncated: true`). The command or diff a person sees first
// is cut last, after everything else was cut to the same length.

const STEPS = [4000, 2000, 1000, 500, 200, 80];

const encoder = new TextEncoder();
const bytes = (value: unknown) => encoder.encode(JSON.stringify(value)).length;

function cutStrings(value: unknown, max: number): unknown {
  if (typeof value === "string") {
    const chars = Array.from(value);
    return chars.length <= max ? value : `${chars.slice(0, max - 1).join("")}…`;
  }
  if (Array.isArray(value)) return value.map((item) => cutStrings(item, max));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutStrings(item, max)]));
  return value;
}

/** The call, its input cut until `{tool_call: call}` takes at most `maxBytes` of JSON. */
export function fitToolCall(
  call: ToolCallRecord,
  maxBytes: number,
  wrap = (c: ToolCallRecord): unknown => ({ tool_call: c }),
): ToolCallRecord {
  if (bytes(wrap(call)) <= maxBytes) return call;
  for (const max of STEPS) {
    const cut = {
      ...call,
      tool_input: cutStrings(call.tool_input, max) as Record<string, unknown>,
      truncated: true,
    };
    if (bytes(wrap(cut)) <= maxBytes) return cut;
  }
  return { ...call, tool_input: {}, truncated: true };
}
