import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { openApiDocument, type OpenApiDocumentJson } from "@svc/client";
import type { SvcApi } from "./svc-api";
import { toolDenial, type ToolCaller } from "./tool-access";
import { checkToolInput } from "./tool-input";
import { localProblem, problemResult, toolResult } from "./tool-result";
import { svcTools, type SvcTool } from "./tools";

// One MCP server per caller, over any transport: /mcp builds one per HTTP request (stateless),
// `svcctl mcp` one per process. The tool definitions, their visibility and their results are
// this file's, whatever carries them (docs/mcp.md).

export interface SvcMcpServerOptions {
  /** The REST operations, over HTTP or in-process. */
  api: SvcApi;
  /** The key's scopes and agent: they decide which tools are listed and callable. */
  caller: ToolCaller;
  /** Told about a tool call that threw instead of answering (a bug): the result says 500. */
  onError?: (error: unknown, tool: string) => void;
  /** Defaults to the document the client was generated from. */
  document?: OpenApiDocumentJson;
}

const INSTRUCTIONS = `svc tells people things on your behalf and asks them for decisions. Use send_message to notify a person (svc applies their preferences, quiet hours, caps and your budget, so a message may be held or not sent: read its status). Use request_approval before an action that needs a person's consent, then poll get_approval until the status is approved, rejected or expired; act only on approved. Errors come back as results with isError and an RFC 9457 problem (status, title, detail).`;

const toolsByDocument = new WeakMap<OpenApiDocumentJson, SvcTool[]>();

/** The tools of a document, built once (schemas inlined from the document). */
export function toolsOf(doc: OpenApiDocumentJson = openApiDocument): SvcTool[] {
  let tools = toolsByDocument.get(doc);
  if (!tools) toolsByDocument.set(doc, (tools = svcTools(doc)));
  return tools;
}

/** The tools this caller may call, as tools/list shows them. */
export function visibleTools(caller: ToolCaller, doc: OpenApiDocumentJson = openApiDocument): SvcTool[] {
  return toolsOf(doc).filter((tool) => toolDenial(doc, tool, caller) === null);
}

const listed = (tool: SvcTool): Tool => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: tool.inputSchema as Tool["inputSchema"],
  outputSchema: tool.outputSchema as Tool["outputSchema"],
  annotations: { title: tool.title, ...tool.annotations },
});

export function createSvcMcpServer(options: SvcMcpServerOptions): Server {
  const doc = options.document ?? openApiDocument;
  const server = new Server(
    { name: "svc", title: "svc notifications", version: doc.info.version },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: visibleTools(options.caller, doc).map(listed),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const { name } = request.params;
    const tool = toolsOf(doc).find((candidate) => candidate.name === name);
    if (!tool) return problemResult(localProblem(404, `no tool '${name}'`));
    // A tool the key may not call is refused as its REST twin refuses the key.
    const denial = toolDenial(doc, tool, options.caller);
    if (denial) return problemResult(localProblem(403, denial));
    const args = structuredClone(request.params.arguments ?? {});
    const issues = checkToolInput(tool.inputSchema, args);
    if (issues.length > 0) {
      const summary = issues
        .slice(0, 5)
        .map((issue) => `${issue.loc.join(".")}: ${issue.msg}`)
        .join("; ");
      return problemResult(localProblem(422, `Invalid arguments: ${summary}`, issues));
    }
    try {
      return toolResult(await tool.call(options.api, args));
    } catch (error) {
      options.onError?.(error, name);
      return problemResult(localProblem(500, `the tool ${name} failed unexpectedly`));
    }
  });
  return server;
}
