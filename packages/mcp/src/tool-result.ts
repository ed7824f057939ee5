import type { ApiResult, Problem } from "@svc/client";
import { STATUS_TITLE, type ValidationIssue } from "@svc/core";

// Every tool result carries the REST answer twice (docs/mcp.md "Results"): as `structuredContent`
// (checked by clients against the tool's output schema) and as the same JSON in a text block, for
// clients that read only text. An API problem is a result with `isError: true` whose text is the
// problem: status, title, detail (and `errors` for validation).

export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export function problemResult(problem: Problem): ToolResult {
  return { content: [{ type: "text", text: JSON.stringify(problem) }], isError: true };
}

export function toolResult(result: ApiResult<unknown>): ToolResult {
  if (!result.ok) return problemResult(result.problem);
  const data = result.data as Record<string, unknown>;
  return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
}

/** A problem made by the tools themselves (before any call): the shape and titles the API uses. */
export function localProblem(status: number, detail: string, errors?: ValidationIssue[]): Problem {
  return {
    type: "about:blank",
    title: STATUS_TITLE[status] ?? "Error",
    status,
    detail,
    ...(errors ? { errors } : {}),
  };
}
