// svc's MCP tools (docs/mcp.md): one set of definitions served over Streamable HTTP by the API
// (/mcp, in-process) and over stdio by `svcctl mcp` (through the typed client).
export { createSvcMcpServer, toolsOf, visibleTools } from "./mcp-server";
export type { SvcMcpServerOptions } from "./mcp-server";
export { svcApiOverHttp } from "./svc-api";
export type { SvcApi } from "./svc-api";
export type { ToolCaller } from "./tool-access";
export type { SvcTool } from "./tools";
export { componentSchema, inlineSchema } from "./json-schema";
export type { JsonSchema } from "./json-schema";
